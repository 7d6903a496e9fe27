import autocannon from 'autocannon';
import type { Meter } from './costs';
import { summarise, type Throughput } from './stats';

export interface HttpLoad {
  url: string;
  connections: number;
  /** Seconds to run; or `amount` requests in all. */
  duration?: number;
  amount?: number;
  /** Each request in turn: method, path, headers, body. Called once per request sent. */
  next: () => { method?: 'GET' | 'POST'; path: string; body?: string };
  headers?: Record<string, string>;
  /** Statuses that count as success (others are errors). */
  expect: readonly number[];
  timeoutSeconds?: number;
  /** Meters the requests' cost (database and Redis commands, CPU time) from the first to the last. */
  meter?: Meter;
}

/**
 * Drives an HTTP server with autocannon at a fixed concurrency. Latencies are taken per response
 * (autocannon's own histogram has no p95), statuses counted, unexpected ones reported as errors;
 * the bytes of each response as autocannon read them off the socket: status line and headers
 * included.
 */
export async function httpLoad(load: HttpLoad): Promise<Throughput> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let unexpected = 0;
  let bytes = 0;
  const metering = await load.meter?.();
  const started = performance.now();
  const result = await autocannon({
    url: load.url,
    connections: load.connections,
    ...(load.amount === undefined ? { duration: load.duration ?? 10 } : { amount: load.amount }),
    // Long: a slow engine is measured, not cut off.
    timeout: load.timeoutSeconds ?? 600,
    headers: load.headers ?? {},
    requests: [
      {
        setupRequest: (request) => {
          const next = load.next();
          return { ...request, method: next.method ?? 'GET', path: next.path, ...(next.body === undefined ? {} : { body: next.body }) };
        },
      },
    ],
    setupClient: (client) => {
      client.on('response', (status: number, responseBytes: number, responseTime: number) => {
        latencies.push(responseTime);
        bytes += responseBytes;
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (!load.expect.includes(status)) unexpected++;
      });
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const costs = await metering?.stop(result.requests.sent);
  return {
    ...summarise(latencies, seconds, unexpected + result.errors + result.timeouts, statuses),
    bytesPerResponse: latencies.length ? Math.round(bytes / latencies.length) : NaN,
    ...(costs ? { costs } : {}),
  };
}
