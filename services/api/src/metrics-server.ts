import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

/**
 * `GET /metrics` on its own port (METRICS_PORT), apart from the API: the Service and the Ingress
 * route only the API's port, so metrics (routes, latencies, error rates, tenant activity) never
 * reach the public, and no path rule at a proxy has to keep them in. Nothing else is served here;
 * the probes stay on the API's port, where the kubelet and the load balancer look.
 */
export function metricsServer(registry: Registry, logger?: Logger): Server {
  return createServer((req, res) => {
    const send = (status: number, type: string, body: string) => res.writeHead(status, { 'Content-Type': type }).end(body);
    const path = (req.url ?? '/').split('?')[0];
    // A scrape every 15–30 s per pod: logged at debug, like the probes (request-log.ts).
    if (logger?.isLevelEnabled('debug')) logScrape(logger, req, res, path ?? '/');
    if (path !== '/metrics') return send(404, 'text/plain', 'not found: metrics are at /metrics\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    registry.metrics().then(
      (text) => send(200, registry.contentType, text),
      () => send(500, 'text/plain', 'metrics unavailable\n'),
    );
  });
}

/**
 * The request log's line, at debug, with the path only and no headers: a scraper may send a
 * bearer token, and the query is of no use here.
 */
function logScrape(logger: Logger, req: IncomingMessage, res: ServerResponse, path: string): void {
  const started = Date.now();
  res.once('close', () =>
    logger.debug({ req: { method: req.method, url: path }, res: { statusCode: res.statusCode }, responseTime: Date.now() - started }, 'request completed'),
  );
}
