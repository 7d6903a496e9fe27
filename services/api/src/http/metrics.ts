import type { RequestHandler } from 'express';
import { DEPENDENCY_UP_METRIC, measureDependencies, type Check } from '@entia/health';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

  // The series of each (method, route, status), found by one string: prom-client would hash the
  // label object on every observation, a measurable share of a cached GET.
  const series = new Map<string, { count: { inc(): void }; time: { observe(seconds: number): void } }>();
  const seriesOf = (method: string, route: string, status: string) => {
    const key = `${method} ${status} ${route}`;
    let found = series.get(key);
    if (!found) {
      const labels = { method, route, status };
      found = { count: requests.labels(labels), time: duration.labels(labels) };
      series.set(key, found);
    }
    return found;
  };

  const middleware: RequestHandler = (req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      // The route pattern, never the raw path: ids in paths would explode the label set.
      const route: string = req.route?.path ?? 'unmatched';
      const { count, time } = seriesOf(req.method, route, String(res.statusCode));
      count.inc();
      time.observe((performance.now() - started) / 1000);
    });
    next();
  };
  return { registry, middleware };
}

/** `entia_dependency_up{dependency}`, from the checks /readyz asks, run at scrape time. */
export function dependencyGauge(registry: Registry, checks: Record<string, Check>, timeoutMs: number): void {
  new Gauge({
    ...DEPENDENCY_UP_METRIC,
    registers: [registry],
    async collect() {
      await measureDependencies(checks, timeoutMs, (dependency, up) => this.set({ dependency }, up));
    },
  });
}
