import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import type { WorkerReadiness } from './readiness';
import { failureChanges } from '@entia/health';

export interface HealthSource {
  /** Whether the worker can take jobs, naming each dependency's state; bounded by READINESS_TIMEOUT_MS. */
  readiness(): Promise<WorkerReadiness>;
  /** What will never work again by itself (`RunningWorker.stuck`): /healthz fails while it names anything. */
  stuck(): Record<string, string>;
  registry: Registry;
}

/** The worker's own small HTTP surface for probes and scraping: /healthz, /readyz, /metrics. */
export function healthServer({ readiness, stuck, registry }: HealthSource, logger?: Logger): Server {
  const logFailures = logger ? failureChanges(logger) : () => undefined;
  return createServer((req, res) => {
    const send = (status: number, type: string, body: string) => res.writeHead(status, { 'Content-Type': type }).end(body);
    const path = (req.url ?? '/').split('?')[0];
    // Probes and scrapes, every few seconds per pod: logged at debug (as the API's are), with the
    // path only and no headers (a scraper may send a bearer token).
    if (logger?.isLevelEnabled('debug')) {
      const started = Date.now();
      res.once('close', () =>
        logger.debug({ req: { method: req.method, url: path }, res: { statusCode: res.statusCode }, responseTime: Date.now() - started }, 'request completed'),
      );
    }
    if (req.method !== 'GET') return send(405, 'application/json', JSON.stringify({ status: 405 }));
    if (path === '/healthz') {
      const parts = stuck();
      if (Object.keys(parts).length === 0) return send(200, 'application/json', JSON.stringify({ status: 'ok' }));
      logger?.error({ stuck: parts }, 'stuck: failing liveness so that the process is restarted');
      return send(503, 'application/json', JSON.stringify({ status: 'stuck', stuck: parts }));
    }
    if (path === '/readyz') {
      readiness().then(
        (report) => {
          logFailures(report.failures);
          send(report.ready ? 200 : 503, 'application/json', JSON.stringify(report.body));
        },
        () => send(503, 'application/json', JSON.stringify({ status: 'unavailable' })),
      );
      return;
    }
    if (path === '/metrics') {
      registry.metrics().then(
        (text) => send(200, registry.contentType, text),
        () => send(500, 'text/plain', 'metrics unavailable'),
      );
      return;
    }
    send(404, 'application/json', JSON.stringify({ status: 404 }));
  });
}
