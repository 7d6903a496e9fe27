import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Deps } from './deps';
import { errorHandler, notFound } from './http/error-handler';
import { createMetrics } from './http/metrics';
import { mountRoutes } from './http/mount';
import { rateLimiter } from './http/rate-limit';
import { requestId } from './http/request-id';
import { healthRoutes, type Lifecycle } from './routes/health';
import { jobRoutes } from './routes/jobs';
import { openApiRoute } from './routes/openapi';
import { version } from './version';

/** The express app over `deps`; listening and shutdown belong to main.ts. */
export function createApp(deps: Deps, lifecycle: Lifecycle = { shuttingDown: false }): Express {
  const { config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY_HOPS);
  app.set('query parser', 'simple');

  const metrics = createMetrics();
  app.use(pinoHttp({ logger, genReqId: requestId, autoLogging: { ignore: (req) => req.url === '/healthz' } }));
  app.use(metrics.middleware);
  app.use(helmet());

  const routes = [...healthRoutes(deps, metrics.registry, lifecycle), ...jobRoutes(deps)];
  mountRoutes(app, [...routes, openApiRoute(routes, version)], {
    bodyLimit: config.BODY_LIMIT_BYTES,
    rateLimit: rateLimiter({
      redis: deps.redis,
      windowMs: config.RATE_LIMIT_WINDOW_MS,
      max: config.RATE_LIMIT_MAX,
      prefix: config.REDIS_PREFIX,
    }),
  });

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
