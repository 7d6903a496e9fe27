import { hasRight, presentEntity } from '@entia/domain';
import { refreshEntity } from '@entia/derive';
import { newId } from '@entia/store';
import { Type } from '@sinclair/typebox';
import { grantOf } from '../auth/authenticate';
import type { Deps } from '../deps';
import { existingId, readable } from '../entities/read';
import { HttpProblem, problems } from '../http/problem';
import { defineRoute, type Route } from '../http/route';
import { signedIn, type Tenant, type Tenants } from '../tenancy';
import { DbIdPath, DbPath, EntityBody } from './schemas';

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

/** Rebuild job ids name their database, so a status read cannot reach another database's job. */
const rebuildPrefix = (db: string) => `rebuild-${db}-`;

/** A whole-database rebuild is the database's owners' business (SPEC §7). */
async function assertDatabaseOwner(tenant: Tenant): Promise<void> {
  const caller = signedIn(tenant);
  const { entity } = await readable(tenant, tenant.record.databaseEntity);
  if (!hasRight(entity.properties, caller, 'owner')) {
    throw new HttpProblem(403, 'forbidden', 'Forbidden', 'Rebuilding a database needs the owner right on its database entity.');
  }
}

/** `/aggregate`: fresh formula values now (one entity), or a whole-database rebuild as a job. */
export function aggregateRoutes(deps: Deps, tenants: Tenants): Route[] {
  const aggregateEntity = defineRoute({
    method: 'post',
    path: '/api/{db}/entity/{id}/aggregate',
    operationId: 'aggregateEntity',
    summary: 'Recompute the entity\'s formulas, labels and inherited rights now; returns it fresh. Needs a signed-in caller who can read it.',
    tags: ['entities'],
    params: DbIdPath,
    responses: { 200: { description: 'The entity, recomputed.', schema: Type.Object({ entity: EntityBody }) }, ...errors },
    handler: async ({ params, res }) => {
      const tenant = await tenants.resolve(params.db, grantOf(res));
      signedIn(tenant);
      const id = existingId(params.id, 'entity');
      await readable(tenant, id);
      await refreshEntity(deps, tenant.name, tenant.record, id, 0);
      // Read again: recomputation may have taken the caller's right away (inherited rights).
      res.set('Cache-Control', 'no-store').json({ entity: presentEntity((await readable(tenant, id)).entity) });
    },
  });
  return [
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
        const id = await deps.jobs.enqueue('rebuild', { db: tenant.name }, `${rebuildPrefix(tenant.name)}${newId()}`);
        res.status(202).location(`${req.baseUrl}/api/${tenant.name}/aggregate/${id}`).json({ id });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/{db}/aggregate/{id}',
      operationId: 'getAggregation',
      summary: 'State and progress of a whole-database rebuild.',
      tags: ['entities'],
      params: Type.Object({ db: Type.String(), id: Type.String({ maxLength: 200 }) }),
      responses: { 200: { description: 'The rebuild job.', schema: Rebuild }, ...errors },
      handler: async ({ params, res }) => {
        const tenant = await tenants.resolve(params.db, grantOf(res));
        await assertDatabaseOwner(tenant);
        const status = params.id.startsWith(rebuildPrefix(tenant.name)) ? await deps.jobs.status(params.id) : undefined;
        if (!status || status.name !== 'rebuild') throw problems.notFound(`No rebuild ${params.id} of this database.`);
        const { name: _name, attempts: _attempts, ...shown } = status;
        res.set('Cache-Control', 'no-store').json(shown);
      },
    }),
  ];
}
