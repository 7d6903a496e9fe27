import { Type } from '@sinclair/typebox';
import type { Deps } from '../deps';
import type { Lifecycle } from '../http/lifecycle';
import { problems, sendProblem } from '../http/problem';
import { defineRoute, type Route } from '../http/route';
import { probe, type Check } from '@entia/health';
import type { SchemaGate } from '@entia/entities';

const Checks = Type.Record(Type.String(), Type.Union([Type.Literal('up'), Type.Literal('down')]));

// A replica has proved its configuration and its network path once these have answered: until
// then it is not ready (a rollout with a wrong MONGODB_URL stalls instead of replacing good pods).
const NEEDED_TO_START = ['mongodb', 'redis'];

/** What /readyz asks, and `entia_dependency_up` (app.ts) with it. */
export function dependencyChecks(deps: Deps): Record<string, Check> {
  return {
    mongodb: () => deps.store.ping(),
    redis: () => deps.redis.ping(),
    storage: () => deps.objects.ping(),
  };
}

/** The probes, on the API's own port (Kubernetes probes it there); metrics are on METRICS_PORT (metrics-server.ts). */
export function healthRoutes(deps: Deps, lifecycle: Lifecycle, schema?: SchemaGate): Route[] {
  const checks = dependencyChecks(deps);
  let started = false;
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      summary: 'Liveness: the process is up and serving HTTP.',
      tags: ['operations'],
      rateLimited: false,
      auth: 'none',
      responses: { 200: { description: 'Alive.', schema: Type.Object({ status: Type.Literal('ok') }) } },
      handler: ({ res }) => {
        res.json({ status: 'ok' });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      summary:
        'Readiness: this replica can answer. 503 until MongoDB and Redis have answered once, and from SIGTERM on; otherwise 200, ' +
        '`degraded` naming the dependencies that are down (the routes needing them answer 503 at once), so an outage of a ' +
        'dependency every replica shares does not take every replica out of the load balancer.',
      tags: ['operations'],
      rateLimited: false,
      auth: 'none',
      responses: {
        200: {
          description: 'Ready; `degraded` names the dependencies that are down now.',
          schema: Type.Object({ status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')]), checks: Checks, degraded: Type.Optional(Type.Array(Type.String())) }),
        },
        503: { description: 'Shutting down, MongoDB or Redis has not answered since the process started (named in `detail` and `checks`), or the stored schema is older than this version needs (`detail`: run entia-admin migrate).' },
      },
      handler: async ({ req, res }) => {
        if (lifecycle.shuttingDown) return sendProblem(res, problems.unavailable('shutting down'));
        const readiness = await probe(checks, deps.config.READINESS_TIMEOUT_MS);
        const down = Object.keys(readiness.failures);
        if (down.length > 0) req.log.warn({ failures: readiness.failures }, 'dependencies unavailable');
        started ||= NEEDED_TO_START.every((name) => readiness.checks[name] === 'up');
        if (!started) {
          const missing = NEEDED_TO_START.filter((name) => readiness.checks[name] !== 'up').join(', ');
          return sendProblem(res, problems.unavailable(`starting: ${missing} unreachable`, { checks: readiness.checks }));
        }
        // A schema older than the code's (or not read yet): not ready, and the reason says what to run.
        if (schema?.reason !== undefined) return sendProblem(res, problems.unavailable(schema.reason, { checks: readiness.checks }));
        res.json(down.length === 0 ? { status: 'ready', checks: readiness.checks } : { status: 'degraded', checks: readiness.checks, degraded: down });
      },
    }),
  ];
}
