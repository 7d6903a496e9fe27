import { assertDatabaseOwner as assertOwnerOf, presentEntity } from '@entia/domain';
import { settleEntity } from '@entia/derive';
import { randomJobId } from '@entia/jobs';
import { Type } from '@sinclair/typebox';
import { grantOf } from '../auth/authenticate';
import type { Deps } from '../deps';
import { existingId, readable } from '../entities/read';
import { problems } from '../http/problem';
import { defineRoute, type Route } from '../http/route';
import { signedIn, type Tenant, type Tenants } from '../tenancy';
import { DatabaseName, DbIdPath, DbPath, EntityBody } from './schemas';

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

/**
 * Rebuild job ids name their database, so a status read cannot reach another database's job, and
 * end in 128 random bits, so one id tells nothing of any other.
 */
const rebuildPrefix = (db: string) => `rebuild-${db}-`;

/** A whole-database rebuild is the database's owners' business (SPEC §7). */
async function assertDatabaseOwner(tenant: Tenant): Promise<void> {
  const caller = signedIn(tenant);
  const { entity } = await readable(tenant, tenant.record.databaseEntity);
  assertOwnerOf(entity.properties, caller);
}

/** `/aggregate`: fresh formula values now (one entity), or a whole-database rebuild as a job. */
export function aggregateRoutes(deps: Deps, tenants: Tenants): Route[] {
  const aggregateEntity = defineRoute({
    method: 'post',
    path: '/api/{db}/entity/{id}/aggregate',
    operationId: 'aggregateEntity',
    summary: 'Recompute the entity\'s formulas, labels and inherited rights now; returns it fresh. Needs a signed-in caller who can read it.',
    tags: ['entities'],
    // Also as GET (below), which does not make it an anonymous read.
    security: 'required',
    params: DbIdPath,
    responses: { 200: { description: 'The entity, recomputed.', schema: Type.Object({ entity: EntityBody }) }, ...errors },
    handler: async ({ params, res }) => {
      const tenant = await tenants.resolve(params.db, grantOf(res));
      signedIn(tenant);
      const id = existingId(params.id, 'entity');
      await readable(tenant, id);
      await settleEntity(deps, tenant.name, tenant.record, id, 0);
      // Read again: recomputation may have taken the caller's right away (inherited rights).
      res.set('Cache-Control', 'no-store').json({ entity: presentEntity((await readable(tenant, id)).entity) });
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
      handler: async ({ params, res }) => {
        const tenant = await tenants.resolve(params.db, grantOf(res));
        const id = existingId(params.id, 'entity');
        await readable(tenant, id);
        const marks = await deps.store.registry.pending.of(tenant.name, id);
        const since = marks.length === 0 ? undefined : new Date(Math.min(...marks.map((mark) => mark.at.getTime()))).toISOString();
        res.set('Cache-Control', 'no-store').json(since === undefined ? { pending: false } : { pending: true, since });
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
      handler: async ({ params, req, res }) => {
        const tenant = await tenants.resolve(params.db, grantOf(res));
        await assertDatabaseOwner(tenant);
        const id = await deps.jobs.enqueue('rebuild', { db: tenant.name }, `${rebuildPrefix(tenant.name)}${randomJobId()}`);
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
        id: Type.String({ pattern: '^rebuild-[a-z][a-z0-9_]{2,62}-[0-9a-f]{32}$', description: 'The rebuild\'s id, as scheduled (`rebuild-<db>-<32 hex>`: 128 random bits).' }),
      }),
      responses: { 200: { description: 'The rebuild job.', schema: Rebuild }, ...errors },
      handler: async ({ params, res }) => {
        const tenant = await tenants.resolve(params.db, grantOf(res));
        await assertDatabaseOwner(tenant);
        const status = params.id.startsWith(rebuildPrefix(tenant.name)) ? await deps.jobs.status(params.id) : undefined;
        if (!status || status.name !== 'rebuild') throw problems.notFound(`No rebuild ${params.id} of this database.`);
        const { name: _name, attempts: _attempts, ...shown } = status;
        // Until the job has counted the entities, BullMQ shows its initial progress, a bare 0.
        const progress = typeof shown.progress === 'object' && shown.progress !== null ? shown.progress : { done: 0, total: await tenant.entities.count() };
        res.set('Cache-Control', 'no-store').json({ ...shown, progress });
      },
    }),
  ];
}
