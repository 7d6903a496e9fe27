import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface HealthSource {
  /** Resolves when the worker can take jobs (Redis answers and the worker runs). */
  ready(): Promise<void>;
  registry: Registry;
}

/** The worker's own small HTTP surface for probes and scraping: /healthz, /readyz, /metrics. */
export function healthServer({ ready, registry }: HealthSource): Server {
  return createServer((req, res) => {
    const send = (status: number, type: string, body: string) => res.writeHead(status, { 'Content-Type': type }).end(body);
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(405, 'application/json', JSON.stringify({ status: 405 }));
    if (path === '/healthz') return send(200, 'application/json', JSON.stringify({ status: 'ok' }));
    if (path === '/readyz') {
      ready().then(
        () => send(200, 'application/json', JSON.stringify({ status: 'ready' })),
        (error: unknown) =>
          send(503, 'application/json', JSON.stringify({ status: 'unavailable', detail: error instanceof Error ? error.message : 'not ready' })),
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
