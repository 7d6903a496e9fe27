import { DATABASE_NAME_SOURCE, assertDatabaseOwner, notFound, presentEntity } from '@entia/domain';
import { RANDOM_JOB_ID_SOURCE, randomJobId, type JobStatus } from '@entia/jobs';
import { pendingSince, type DatabaseRecord } from '@entia/store';
import type { EntitiesDeps, SettleDeps } from './deps';
import { existingId, readable } from './read';
import { settleEntity } from './settle';
import { signedIn, type Tenant } from './tenant';
import { inTurn } from './write/turns';

/**
 * Rebuild job ids name their database, so a status read cannot reach another database's job, and
 * end in 128 random bits, so one id tells nothing of any other.
 */
const rebuildPrefix = (db: string) => `rebuild-${db}-`;
/** Every rebuild id, for the route that reads one: another names nothing (404). */
export const REBUILD_ID_PATTERN = `^rebuild-${DATABASE_NAME_SOURCE}-${RANDOM_JOB_ID_SOURCE}$`;

/** Whole-database operations need the owner right on the database entity (SPEC §7). */
async function asDatabaseOwner(tenant: Tenant): Promise<void> {
  const caller = signedIn(tenant);
  const { entity } = await readable(tenant, tenant.record.databaseEntity);
  assertDatabaseOwner(entity.properties, caller);
}

/** `/aggregate` of one entity: its formulas, labels and inherited rights recomputed now; the entity as it is then. */
export async function aggregateEntity(deps: EntitiesDeps, tenant: Tenant, requested: string): Promise<{ entity: Record<string, unknown> }> {
  signedIn(tenant);
  const id = existingId(requested, 'entity');
  await readable(tenant, id);
  await inTurn(() => settleEntity(deps, tenant.name, tenant.record, id, 0, { recompute: true }));
  // Read again: recomputation may have taken the caller's right away (inherited rights).
  return { entity: presentEntity((await readable(tenant, id)).entity) };
}

/** Whether the entity's derived data may still change because of writes already acknowledged, and since when. */
export async function pendingOf(deps: EntitiesDeps, tenant: Tenant, id: string): Promise<{ pending: false } | { pending: true; since: string }> {
  const { unsettled } = await readable(tenant, id);
  const marks = await deps.store.registry.pending.of(tenant.name, id);
  // Marked by what it reads, or by its own outbox (since the oldest work still in it).
  const since = [...marks.map((mark) => pendingSince(mark).getTime()), ...(unsettled ? [unsettled.getTime()] : [])];
  if (since.length === 0) return { pending: false };
  return { pending: true, since: new Date(Math.min(...since)).toISOString() };
}

/** Schedules the recomputation of every entity of the database (owners only); resolves to the job's id. */
export async function scheduleRebuild(deps: EntitiesDeps, tenant: Tenant): Promise<string> {
  await asDatabaseOwner(tenant);
  return deps.jobs.enqueue('rebuild', { db: tenant.name }, `${rebuildPrefix(tenant.name)}${randomJobId()}`);
}

/** State and progress of a rebuild of this database (owners only); 404 for any other job. */
export async function rebuildStatus(deps: EntitiesDeps, tenant: Tenant, id: string): Promise<Omit<JobStatus, 'name' | 'attempts'>> {
  await asDatabaseOwner(tenant);
  const status = id.startsWith(rebuildPrefix(tenant.name)) ? await deps.jobs.status(id) : undefined;
  if (!status || status.name !== 'rebuild') throw notFound(`No rebuild ${id} of this database.`);
  const { name: _name, attempts: _attempts, ...shown } = status;
  // Until the job has counted the entities, BullMQ shows its initial progress, a bare 0.
  const progress = typeof shown.progress === 'object' && shown.progress !== null ? shown.progress : { done: 0, total: await tenant.entities.count() };
  return { ...shown, progress };
}

/** Where a rebuild stands: the last entity id settled (none yet: absent) and how many have been. */
export interface RebuildPosition {
  after?: string;
  done: number;
}

/** Entities settled between two saved positions: what a rebuild cut short does again. */
const REBUILD_PAGE = 100;

/**
 * The worker's rebuild: every entity settled in id order; what a recomputation changes cascades
 * as usual, so entities read by ones recomputed earlier are caught up in turn. It starts after
 * `from` (a rebuild taken up again) and hands `step` its position after each page, to be kept
 * where the next attempt finds it; resolves with how many entities the whole rebuild settled.
 */
export async function rebuildDatabase(
  deps: SettleDeps,
  db: string,
  record: DatabaseRecord,
  from: RebuildPosition,
  step: (position: RebuildPosition, total: number) => Promise<void>,
): Promise<number> {
  const entities = deps.store.entities(db);
  const total = await entities.count();
  let position = from;
  await step(position, total);
  for await (const ids of entities.allIds(REBUILD_PAGE, from.after)) {
    for (const id of ids) await settleEntity(deps, db, record, id, 1, { recompute: true });
    position = { after: ids[ids.length - 1]!, done: position.done + ids.length };
    await step(position, total);
  }
  return position.done;
}
