import { describeChange, referencesOf, type Entity, type Value } from '@entia/domain';
import { newId, type OutboxEntry } from '@entia/store';
import type { EntitiesDeps } from '../deps';
import { isDefinition, isSchemaEntity } from '../definitions';
import { objectKeysOf } from '../files';
import { needsSettling, scheduleSettle } from '../schedule';
import type { Schema } from '../schema';
import type { Tenant } from '../tenant';

/**
 * What the write leaves for the worker, committed with it (SPEC §9): telling the entities that
 * read the change (when the schema says anyone may), removing the objects of file values that are
 * gone, and rebuilding the entities of a type whose definitions changed.
 */
export function outboxOf(tenant: Tenant, schema: Schema, before: Entity | undefined, after: Entity | undefined, gone: readonly Value[]): OutboxEntry[] {
  const entity = (after ?? before)!;
  const entries: OutboxEntry[] = [];
  const change = describeChange(before, after);
  if (change && needsSettling(schema, change)) entries.push({ id: newId(), kind: 'changed', change, depth: 0 });
  const keys = objectKeysOf(tenant.name, entity._id, gone);
  if (keys.length > 0) entries.push({ id: newId(), kind: 'delete-objects', keys });
  const types = [...new Set([before, after].flatMap((state) => (state && isDefinition(tenant, state) ? referencesOf(state.properties, '_parent') : [])))];
  if (types.length > 0) entries.push({ id: newId(), kind: 'reindex', types });
  return entries;
}

/**
 * Cached copies of the entity (and the lists, and the schema when it is a type or definition) are
 * invalidated twice. Before the commit, and a failure fails the write before anything is stored: no
 * copy made before the write is read after it. After the commit, for a reader that raced the write
 * and cached the old state under the new token; that one must not fail a stored write, so it is
 * logged (docs/decisions.md: the argument for read-your-own-writes).
 */
export const invalidate = (deps: EntitiesDeps, tenant: Tenant, entity: Entity) => deps.generations.touch(tenant.name, [entity._id], isSchemaEntity(tenant, entity));

/** After the commit: nothing here can fail the request, the write stands and its effects are recorded. */
export async function afterCommit(deps: EntitiesDeps, tenant: Tenant, entity: Entity, outbox: readonly OutboxEntry[]): Promise<void> {
  await invalidate(deps, tenant, entity).catch((err: unknown) => {
    deps.logger.error({ err, db: tenant.name, entity: entity._id }, 'could not invalidate cached copies after a write');
  });
  if (outbox.length > 0) await scheduleSettle(deps, tenant.name, [entity._id], 0);
}
