import { Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import type { Deps } from '../deps';
import { problems, sendProblem } from '../http/problem';
import { defineRoute, type Route } from '../http/route';
import { probe } from '../readiness';

export interface Lifecycle {
  /** Set on SIGTERM: the load balancer should stop sending before the listener closes. */
  shuttingDown: boolean;
}

const Checks = Type.Record(Type.String(), Type.Union([Type.Literal('up'), Type.Literal('down')]));

export function healthRoutes(deps: Deps, registry: Registry, lifecycle: Lifecycle): Route[] {
  const checks = {
    mongodb: () => deps.store.ping(),
    redis: () => deps.redis.ping(),
    storage: () => deps.objects.ping(),
  };
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
      summary: 'Readiness: MongoDB, Redis and object storage all answer.',
      tags: ['operations'],
      rateLimited: false,
      auth: 'none',
      responses: {
        200: { description: 'Ready.', schema: Type.Object({ status: Type.Literal('ready'), checks: Checks }) },
        503: { description: 'A dependency is down (named in `detail` and `checks`), or the process is shutting down.' },
      },
      handler: async ({ req, res }) => {
        if (lifecycle.shuttingDown) return sendProblem(res, problems.unavailable('shutting down'));
        const readiness = await probe(checks, deps.config.READINESS_TIMEOUT_MS);
        if (readiness.ready) {
          res.json({ status: 'ready', checks: readiness.checks });
          return;
        }
        req.log.warn({ failures: readiness.failures }, 'not ready');
        const down = Object.keys(readiness.failures).join(', ');
        sendProblem(res, problems.unavailable(`${down} unreachable`, { checks: readiness.checks }));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      summary: 'Prometheus metrics.',
      tags: ['operations'],
      rateLimited: false,
      auth: 'none',
      responses: { 200: { description: 'Prometheus text exposition.', schema: Type.String(), contentType: 'text/plain' } },
      handler: async ({ res }) => {
        res.type(registry.contentType).send(await registry.metrics());
      },
    }),
  ];
}
