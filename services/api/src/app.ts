import express, { type Express } from 'express';
import helmet from 'helmet';
import { pinoHttp } from 'pino-http';
import type { Deps } from './deps';
import { errorHandler, notFound } from './http/error-handler';
import { createMetrics } from './http/metrics';
import { mountRoutes } from './http/mount';
import { rateLimiter } from './http/rate-limit';
import { requestId } from './http/request-id';
import { KeyLiveness, authenticate } from './auth/authenticate';
import { authRoutes } from './routes/auth';
import { aggregateRoutes } from './routes/aggregate';
import { entityRoutes } from './routes/entities';
import { healthRoutes, type Lifecycle } from './routes/health';
import { jobRoutes } from './routes/jobs';
import { openApiRoute } from './routes/openapi';
import { Tenants } from './tenancy';
import { version } from './version';

/** The express app over `deps`; listening and shutdown belong to main.ts. */
export function createApp(deps: Deps, lifecycle: Lifecycle = { shuttingDown: false }): Express {
  const { config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // No automatic ETags: a response with a signed URL must never be answered 304 from a stale
  // copy, and cacheable reads get their validators from the response cache, not from the body.
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY_HOPS);
  app.set('query parser', 'simple');

  const metrics = createMetrics();
  app.use(pinoHttp({ logger, genReqId: requestId, autoLogging: { ignore: (req) => req.url === '/healthz' } }));
  app.use(metrics.middleware);
  app.use(helmet());

  const tenants = new Tenants(deps.store, config.MONGODB_CONTROL_DB);
  const routes = [
    ...healthRoutes(deps, metrics.registry, lifecycle),
    ...authRoutes(deps),
    ...entityRoutes(deps, tenants),
    ...aggregateRoutes(deps, tenants),
    ...jobRoutes(deps),
  ];
  mountRoutes(app, [...routes, openApiRoute(routes, version)], {
    bodyLimit: config.BODY_LIMIT_BYTES,
    authenticate: authenticate(config.JWT_SECRET, new KeyLiveness(deps.store.registry, config.KEY_RECHECK_MS)),
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
