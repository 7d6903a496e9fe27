import { parseCorsOrigins, parseJwtSecrets, parseRedirectUris } from '@entia/config';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { Registry } from 'prom-client';
import type { Deps } from './deps';
import { corsHeaders } from './http/cors';
import { errorHandler, notFound } from './http/error-handler';
import { graphqlRoutes } from './graphql/route';
import { Lifecycle, admission } from './http/lifecycle';
import { schemaGuard } from './http/schema-gate';
import type { SchemaGate } from '@entia/entities';
import { createMetrics, dependencyGauge } from './http/metrics';
import { idempotency } from './http/idempotency';
import { grantOf } from './http/caller';
import { mountRoutes } from './http/mount';
import { RateLimiter } from './http/rate-limit';
import { isProbe, requestLog } from './http/request-log';
import { KeyLiveness, authenticate } from './auth/authenticate';
import { TokenKeys } from './auth/tokens';
import { authRoutes } from './routes/auth';
import { aggregateRoutes } from './routes/aggregate';
import { changeRoutes } from './routes/changes';
import { ChangeFeed } from './changes/feed';
import { StreamSlots } from './changes/slots';
import { StreamTickets } from './changes/tickets';
import { duplicateRoutes } from './routes/duplicate';
import { entityRoutes } from './routes/entities';
import { dependencyChecks, healthRoutes } from './routes/health';
import { historyRoutes } from './routes/history';
import { openApiRoute } from './routes/openapi';
import { schemaRoutes } from './routes/schema';
import { statisticsRoutes } from './routes/statistics';
import { thumbnailRoutes } from './routes/thumbnails';
import { webhookRoutes } from './routes/webhooks';
import { Tenants } from './tenancy';
import { oidcRoutes } from './routes/oidc';
import { SignInKeys } from './auth/sign-in-keys';
import { passkeyRoutes } from './routes/passkeys';
import { oidcSignIn, passkeyCeremonies } from './auth/people';
import { version } from './version';

/**
 * The express app over `deps`; listening and shutdown belong to main.ts, which passes the
 * lifecycle it drains and the registry its own metrics (index builds) are in, and serves that
 * registry on METRICS_PORT: the app itself has no /metrics (a 404 like any unknown path).
 */
export function createApp(deps: Deps, lifecycle: Lifecycle = new Lifecycle(), registry: Registry = new Registry(), schema?: SchemaGate): Express {
  const { config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // No automatic ETags: a response with a signed URL must never be answered 304 from a stale
  // copy, and cacheable reads get their validators from the response cache, not from the body.
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY_HOPS);
  app.set('query parser', 'simple');

  const metrics = createMetrics(registry);
  dependencyGauge(registry, dependencyChecks(deps), config.READINESS_TIMEOUT_MS);
  app.use(requestLog(logger, isProbe));
  app.use(metrics.middleware);
  // Before admission and every guard, so every answer carries CORS headers, errors included.
  app.use(corsHeaders(parseCorsOrigins(config.CORS_ORIGINS)));
  app.use(admission(lifecycle));
  // main.ts passes the schema gate: nothing is served on a schema older than the code's.
  if (schema) app.use(schemaGuard(schema));
  app.use(helmet());

  const tenants = new Tenants(deps.store, config.MONGODB_CONTROL_DB);
  const feed = new ChangeFeed({
    deps,
    config,
    log: deps.changes,
    hub: deps.hub,
    // A slot outlives three missed heartbeats: a process that died frees its streams' slots by then.
    slots: new StreamSlots(deps.breaker, config.REDIS_PREFIX, config.CHANGE_STREAMS_PER_PERSON, config.CHANGE_STREAM_HEARTBEAT_MS * 3),
    lifecycle,
    registry,
  });
  const limiter = new RateLimiter({ breaker: deps.cacheBreaker, logger, windowMs: config.RATE_LIMIT_WINDOW_MS, max: config.RATE_LIMIT_MAX, prefix: config.REDIS_PREFIX });
  const signInKeys = new SignInKeys(deps.breaker, config.REDIS_PREFIX);
  const routes = [
    ...healthRoutes(deps, lifecycle, schema),
    ...authRoutes(deps, tenants, signInKeys),
    ...entityRoutes(deps),
    ...aggregateRoutes(deps),
    ...historyRoutes(deps),
    ...schemaRoutes(deps),
    ...webhookRoutes(deps),
    ...duplicateRoutes(deps),
    ...thumbnailRoutes(deps),
    ...graphqlRoutes(deps),
    ...changeRoutes(deps, tenants, feed, new StreamTickets(deps.breaker, config.REDIS_PREFIX)),
    ...passkeyRoutes(deps, tenants, passkeyCeremonies(deps)),
    // After every other path under /api/auth: it ends with GET /api/auth/{provider}.
    ...oidcRoutes(deps, tenants, oidcSignIn(deps), new Set(parseRedirectUris(config.OIDC_REDIRECT_URIS)), signInKeys),
    ...statisticsRoutes(deps),
  ];
  // The document first: `/api/{db}` would otherwise take `/api/openapi.json` for a database's name.
  mountRoutes(app, [openApiRoute(routes, version), ...routes], {
    lifecycle,
    bodyLimit: config.BODY_LIMIT_BYTES,
    authenticate: authenticate(TokenKeys.fromConfig(config), new KeyLiveness(deps.store, config.KEY_RECHECK_MS)),
    rateLimit: (prefetch) => limiter.guard(prefetch),
    idempotency: idempotency({ redis: deps.breaker, prefix: config.REDIS_PREFIX, secrets: parseJwtSecrets(config).map(({ secret }) => secret), logger }),
    tenantOf: (db, res) => tenants.resolve(db, grantOf(res)),
  });

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
