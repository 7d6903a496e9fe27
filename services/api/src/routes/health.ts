import { Type } from '@sinclair/typebox';
import type { Deps } from '../deps';
import type { Lifecycle } from '../http/lifecycle';
import { problems, sendProblem } from '../http/problem';
import { defineRoute, type Route } from '../http/route';
import { failureChanges, probe, stuckParts, type Check, type Stuck } from '@entia/health';
import { pingRedis, redisStuck } from '@entia/jobs';
import type { SchemaGate } from '@entia/entities';

const Checks = Type.Record(Type.String(), Type.Union([Type.Literal('up'), Type.Literal('down')]));
const Reasons = Type.Record(Type.String(), Type.String(), { description: 'Why each dependency that is down failed, in one line.' });

// A replica has proved its configuration and its network path once these have answered: until
// then it is not ready (a rollout with a wrong MONGODB_URL stalls instead of replacing good pods).
const NEEDED_TO_START = ['mongodb', 'redis'];

/** What /readyz asks, and `entia_dependency_up` (app.ts) with it. */
export function dependencyChecks(deps: Deps): Record<string, Check> {
  return {
    mongodb: () => deps.store.ping(),
    redis: () => pingRedis(deps.redis),
    storage: () => deps.objects.ping(),
  };
}

/**
 * What /healthz asks: why a connection will never serve again by itself. Each recovers from any
 * outage of its server on its own (docs/decisions.md, "Connections that recover"), so only a
 * connection closed under the process counts; an outage never does.
 */
function stuckConnections(deps: Deps): Record<string, Stuck> {
  return {
    mongodb: () => deps.store.stuck,
    redis: () => redisStuck(deps.redis),
    ...(deps.cacheRedis === deps.redis ? {} : { cache: () => redisStuck(deps.cacheRedis) }),
  };
}


/** The probes, on the API's own port (Kubernetes probes it there); metrics are on METRICS_PORT (metrics-server.ts). */
export function healthRoutes(deps: Deps, lifecycle: Lifecycle, schema?: SchemaGate): Route[] {
  const checks = dependencyChecks(deps);
  const connections = stuckConnections(deps);
  const logFailures = failureChanges(deps.logger);
  let started = false;
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      operationId: 'healthz',
      summary:
        'Liveness: the process serves, or will once its dependencies answer. 503 only when it is in a state it cannot leave by ' +
        'itself (a connection closed under it): restart it. A dependency that is down never fails it (see /readyz).',
      tags: ['operations'],
      rateLimited: false,
      auth: 'none',
      responses: {
        200: { description: 'Alive.', schema: Type.Object({ status: Type.Literal('ok') }) },
        503: { description: 'Stuck: `stuck` names each part that will never serve again by itself, with why. Restart the process.' },
      },
      handler: ({ res }) => {
        // Draining after SIGTERM closes the connections on purpose: alive until it exits.
        const stuck = lifecycle.shuttingDown ? {} : stuckParts(connections);
        if (Object.keys(stuck).length === 0) return void res.json({ status: 'ok' });
        sendProblem(res, problems.unavailable(`stuck: ${Object.keys(stuck).join(', ')}; restart the process`, { stuck }));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      operationId: 'readyz',
      summary:
        'Readiness: this replica can answer. 503 until MongoDB and Redis have answered once, and from SIGTERM on; otherwise 200, ' +
        '`degraded` naming the dependencies that are down (the routes needing them answer 503 at once), so an outage of a ' +
        'dependency every replica shares does not take every replica out of the load balancer. `reasons` says why each one ' +
        'that is down failed.',
      tags: ['operations'],
      rateLimited: false,
      auth: 'none',
      responses: {
        200: {
          description: 'Ready; `degraded` names the dependencies that are down now.',
          schema: Type.Object({
            status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')]),
            checks: Checks,
            degraded: Type.Optional(Type.Array(Type.String())),
            reasons: Type.Optional(Reasons),
          }),
        },
        503: {
          description:
            'Shutting down, MongoDB or Redis has not answered since the process started (named in `detail`, `checks` and `reasons`), ' +
            'or the stored schema is older than this version needs (`detail`: run entia-admin migrate).',
        },
      },
      handler: async ({ res }) => {
        if (lifecycle.shuttingDown) return sendProblem(res, problems.unavailable('shutting down'));
        const readiness = await probe(checks, deps.config.READINESS_TIMEOUT_MS);
        const down = Object.keys(readiness.failures);
        logFailures(readiness.failures);
        started ||= NEEDED_TO_START.every((name) => readiness.checks[name] === 'up');
        const states = { checks: readiness.checks, ...(down.length > 0 ? { reasons: readiness.failures } : {}) };
        if (!started) {
          const missing = NEEDED_TO_START.filter((name) => readiness.checks[name] !== 'up');
          const why = missing.map((name) => `${name} unreachable (${readiness.failures[name]})`).join(', ');
          return sendProblem(res, problems.unavailable(`starting: ${why}`, states));
        }
        // A schema older than the code's (or not read yet): not ready, and the reason says what to run.
        if (schema?.reason !== undefined) return sendProblem(res, problems.unavailable(schema.reason, states));
        res.json(down.length === 0 ? { status: 'ready', ...states } : { status: 'degraded', degraded: down, ...states });
      },
    }),
  ];
}
