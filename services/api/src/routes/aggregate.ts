import { REBUILD_ID_PATTERN, aggregateEntity as aggregateNow, existingId, pendingOf, rebuildStatus, scheduleRebuild } from '@entia/entities';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { DatabaseName, DbIdPath, DbPath, EntityAnswer } from './schemas';

const errors = {
  401: { description: 'Not signed in (or an expired, forged or revoked token).' },
  403: { description: 'Readable, but the caller is not an owner of it.' },
  404: { description: 'No such database, entity or job, or the caller may not read it.' },
};

const Rebuild = Type.Object({
  id: Type.String(),
  state: Type.String({ description: 'waiting, active, delayed, completed or failed.' }),
  progress: Type.Unknown({ description: '`{done, total}` entities while it runs.' }),
  result: Type.Optional(Type.Unknown()),
  failedReason: Type.Optional(Type.String()),
});

/** `/aggregate`: fresh formula values now (one entity), or a whole-database rebuild as a job. */
export function aggregateRoutes(deps: Deps): Route[] {
  const aggregateEntity = defineRoute({
    method: 'post',
    path: '/api/{db}/entity/{id}/aggregate',
    operationId: 'aggregateEntity',
    summary: 'Recompute the entity\'s formulas, labels and inherited rights now; returns it fresh. Needs a signed-in caller who can read it.',
    tags: ['entities'],
    // Also as GET (below), which does not make it an anonymous read.
    security: 'required',
    params: DbIdPath,
    responses: { 200: { description: 'The entity, recomputed.', schema: EntityAnswer }, ...errors },
    handler: async ({ params, tenant, res }) => {
      res.set('Cache-Control', 'no-store').json(await aggregateNow(deps, tenant, params.id));
    },
  });
  return [
    defineRoute({
      method: 'get',
      path: '/api/{db}/entity/{id}/pending',
      operationId: 'getEntityPending',
      summary:
        'Whether the entity\'s derived data (formulas, reference labels, inherited rights) may still change because of writes already acknowledged, and since when. Anyone who can read the entity.',
      tags: ['entities'],
      params: DbIdPath,
      responses: {
        200: {
          description: '`pending: false` once every change it reads from, and its own outbox, is settled.',
          schema: Type.Object({ pending: Type.Boolean(), since: Type.Optional(Type.String({ format: 'date-time' })) }),
        },
        ...errors,
      },
      handler: async ({ params, tenant, res }) => {
        res.set('Cache-Control', 'no-store').json(await pendingOf(deps, tenant, existingId(params.id, 'entity')));
      },
    }),
    aggregateEntity,
    // The operation is idempotent, so GET does the same (SPEC §7).
    { ...aggregateEntity, method: 'get', operationId: 'aggregateEntityGet' },
    defineRoute({
      method: 'post',
      path: '/api/{db}/aggregate',
      operationId: 'aggregateDatabase',
      summary: 'Schedule the recomputation of every entity of the database; needs the owner right on its database entity.',
      tags: ['entities'],
      params: DbPath,
      responses: { 202: { description: 'Scheduled; `Location` shows its progress.', schema: Type.Object({ id: Type.String() }) }, ...errors },
      handler: async ({ params, tenant, req, res }) => {
        const id = await scheduleRebuild(deps, tenant);
        res.status(202).location(`${req.baseUrl}/api/${tenant.name}/aggregate/${id}`).json({ id });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/{db}/aggregate/{id}',
      operationId: 'getAggregation',
      summary: 'State and progress of a whole-database rebuild.',
      tags: ['entities'],
      security: 'required',
      params: Type.Object({
        db: DatabaseName,
        id: Type.String({ pattern: REBUILD_ID_PATTERN, description: 'The rebuild\'s id, as scheduled (`rebuild-<db>-<32 hex>`: 128 random bits).' }),
      }),
      responses: { 200: { description: 'The rebuild job.', schema: Rebuild }, ...errors },
      handler: async ({ params, tenant, res }) => {
        res.set('Cache-Control', 'no-store').json(await rebuildStatus(deps, tenant, params.id));
      },
    }),
  ];
}
