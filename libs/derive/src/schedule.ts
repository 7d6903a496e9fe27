import { dependentsOf, formulasOf } from '@entia/domain';
import type { EntityChanged } from '@entia/jobs';
import type { Schema } from './schema';
import type { DeriveDeps } from './deps';

/**
 * How long a refresh waits before it runs: writes arriving meanwhile (a burst to 1000 children of
 * one parent) join the waiting job instead of adding one each.
 */
export const COALESCE_MS = 250;

/** A cascade longer than this is a cycle that does not settle: it is cut off here. */
export const MAX_CASCADE_DEPTH = 40;

/**
 * Schedules the recomputation of entities, at most one waiting job per entity: adding one that is
 * already waiting adds nothing, and one added while it runs runs once more afterwards (it may have
 * read the data before this change). False when the cascade is too deep and nothing was scheduled.
 */
export async function scheduleRefresh(deps: Pick<DeriveDeps, 'jobs'>, db: string, ids: Iterable<string>, depth: number): Promise<boolean> {
  if (depth > MAX_CASCADE_DEPTH) return false;
  for (const entity of new Set(ids)) {
    await deps.jobs.enqueue('refresh', { db, entity, depth }, undefined, {
      delay: COALESCE_MS,
      deduplication: { id: `refresh:${db}:${entity}`, keepLastIfActive: true },
    });
  }
  return true;
}

/**
 * After an entity changed: the entities whose formulas, labels or inherited rights read what
 * changed (SPEC §9), as far as the database's formulas can see it. Returns their ids.
 */
export async function dependentIds(deps: Pick<DeriveDeps, 'store'>, schema: Schema, change: EntityChanged): Promise<Set<string>> {
  const dependents = dependentsOf(schema.paths, {
    typeName: change.type === undefined ? undefined : schema.typeNames.get(change.type),
    properties: change.event === 'updated' ? new Set(change.properties) : 'all',
    references: change.references,
  });
  const entities = deps.store.entities(change.db);
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

/**
 * Whether a written entity needs a recomputation of its own: when its type has formulas reading
 * other entities, or its inherited rights may have changed. Its labels need none: the write
 * labelled every reference it stored.
 */
export function needsOwnRefresh(schema: Schema, change: EntityChanged): boolean {
  if (change.event === 'deleted') return false;
  // Turned off, inherited rights must go; on, they follow the parents.
  if (change.properties.includes('_inheritrights')) return true;
  if (change.inherits && change.properties.includes('_parent')) return true;
  return formulasOf(schema.definitionsOf(change.type)).some((formula) => formula.paths.length > 0);
}
