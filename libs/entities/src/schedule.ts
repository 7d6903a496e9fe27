import { readersOf, type EntityChanged } from '@entia/domain';
import type { Schema } from './schema';
import type { SettleDeps } from './deps';

/**
 * How long a settle job waits before it runs: writes arriving meanwhile (a burst to 1000 children
 * of one parent) join the waiting job instead of adding one each.
 */
export const COALESCE_MS = 250;

/** A cascade longer than this is a cycle that does not settle: it is cut off here. */
export const MAX_CASCADE_DEPTH = 40;

/**
 * Asks the worker to settle entities soon, at most one waiting job per entity: adding one that is
 * already waiting adds nothing, and one added while it runs runs once more afterwards. Only a fast
 * path: the entities are marked pending in the database, and the worker's sweep settles them even
 * if this never reaches Redis. So a failure is logged, never thrown.
 */
export async function scheduleSettle(deps: Pick<SettleDeps, 'jobs' | 'logger'>, db: string, ids: Iterable<string>, depth: number): Promise<void> {
  try {
    await enqueueSettles(deps, db, ids, depth, false);
  } catch (err) {
    deps.logger.error({ err, db }, 'could not queue settle jobs; the sweep will settle the entities');
  }
}

/**
 * After writes of these entities left work in their outboxes: asks the worker to deliver it. The
 * outbox marks each entity unsettled by itself (found by the sweep's scan of outboxes); when the
 * jobs cannot be queued, each is marked pending too, so the next sweep round settles it rather
 * than the next scan. A failure is logged, never thrown.
 */
export async function scheduleOwnSettle(deps: Pick<SettleDeps, 'jobs' | 'logger' | 'store'>, db: string, ids: readonly string[]): Promise<void> {
  try {
    await enqueueSettles(deps, db, ids, 0, true);
  } catch (err) {
    deps.logger.error({ err, db }, 'could not queue settle jobs; the entities are marked for the sweep');
    await deps.store.registry.pending.mark(db, ids, 0).catch((markErr: unknown) => {
      deps.logger.error({ err: markErr, db }, 'could not mark entities pending either; the sweep finds their outboxes');
    });
  }
}

async function enqueueSettles(deps: Pick<SettleDeps, 'jobs'>, db: string, ids: Iterable<string>, depth: number, own: boolean): Promise<void> {
  for (const entity of new Set(ids)) {
    await deps.jobs.enqueue('settle', { db, entity, depth, ...(own ? { own: true as const } : {}) }, undefined, {
      delay: COALESCE_MS,
      deduplication: { id: `${own ? 'settle-own' : 'settle'}:${db}:${entity}`, keepLastIfActive: true },
    });
  }
}

/**
 * After an entity changed: the entities whose formulas, labels or inherited rights read what
 * changed (SPEC §9), as far as the database's formulas can see it (`readersOf`). Returns their ids.
 */
export async function dependentIds(deps: Pick<SettleDeps, 'store'>, schema: Schema, db: string, change: EntityChanged): Promise<Set<string>> {
  const dependents = readersOf(schema, change);
  const entities = deps.store.entities(db);
  const ids = new Set<string>();
  if (dependents.parents) change.parents.forEach((id) => ids.add(id));
  if (dependents.referenced) change.referenced.forEach((id) => ids.add(id));
  // A new entity has no referrers or children yet: no need to look (a scan on some engines).
  const fresh = change.event === 'created';
  if (dependents.referrers && !fresh) (await entities.relatedIds('referrers', change.entity)).forEach((id) => ids.add(id));
  if (dependents.children && !fresh) (await entities.relatedIds('children', change.entity)).forEach((id) => ids.add(id));
  ids.delete(change.entity);
  return ids;
}
