import type { RequestHandler } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Into a registry per app instance (new unless given), so tests that build several apps do not collide. */
export function createMetrics(registry: Registry = new Registry()): { registry: Registry; middleware: RequestHandler } {
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered.', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request.',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  const middleware: RequestHandler = (req, res, next) => {
    const stop = duration.startTimer();
    res.on('finish', () => {
      // The route pattern, never the raw path: ids in paths would explode the label set.
      const route: string = req.route?.path ?? 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      requests.inc(labels);
      stop(labels);
    });
    next();
  };
  return { registry, middleware };
}
