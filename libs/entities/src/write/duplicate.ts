import {
  applyWrite,
  checkDuplicate,
  copiedValues,
  copyDefinitions,
  findValue,
  groupByProperty,
  isFileValue,
  typeOf,
  type CopiedValue,
  type CompiledType,
  type DuplicateRequest,
  type Entity,
  type Value,
  type WriteContext,
  type WriteResult,
} from '@entia/domain';
import { objectKey } from '@entia/files';
import { newId, type KeyRecord, type NewEntity } from '@entia/store';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkAgainstTargets, readFirst, targetsOf, wantedBy } from '../checks';
import type { EntitiesDeps } from '../deps';
import { schemaOf } from '../definitions';
import { keyRecords } from '../keys';
import { readable } from '../read';
import type { Schema } from '../schema';
import { signedIn, type Tenant } from '../tenant';
import { materialiseWrite, writeContext } from './context';
import { afterCommit, beforeCreate, creationOf, invalidate, recordedAs, type Written } from './effects';
import type { WriteOutcome } from './values';

/** The copies made: each as a create answers it (its values, as stored). */
export interface DuplicateOutcome {
  entities: WriteOutcome[];
}

/** A copy decided and built, with the objects its file values are to get. */
type Copy = Written &
  NewEntity & {
    written: Value[];
    /** Object keys, source → copy, of the file values whose source object exists. */
    objects: { from: string; to: string }[];
  };

// Object copies run this many at a time: 100 copies of an entity with a few files stay a few seconds.
const OBJECT_COPIES_AT_ONCE = 8;
// After an insert failed: how long to try removing the copies it may have stored (the writer's own confirmation window).
const UNDO_MS = 5000;

/**
 * POST /{db}/entity/{id}/duplicate: `count` new entities from the values of one the caller may read,
 * each created by the create rules (docs/decisions.md "Duplicate"): the caller owns them, the
 * references must resolve for the caller, `_parent` needs `_expander` on each parent, `mandatory`
 * and `reference_query` hold. File values get objects of their own, copied in storage. All or
 * nothing: every rule is asked before anything is written; then the objects are copied, and the
 * copies inserted in one `createMany`; a failed insert has the copies it may have stored removed,
 * and the objects with them.
 */
export async function duplicateEntity(deps: EntitiesDeps, tenant: Tenant, id: string, request: DuplicateRequest): Promise<DuplicateOutcome> {
  const caller = signedIn(tenant);
  const source = (await readable(tenant, id)).entity;
  const schema = await schemaOf(deps, tenant);
  const type = schema.typeOf(typeOf(source.properties));
  checkDuplicate(source, type.definitions, tenant.record.meta, request);
  const values = copiedValues(source, type.definitions, request.ignoredProperties);
  const now = new Date().toISOString();
  const isPerson = typeOf(source.properties) === tenant.record.meta.person;
  const decided = Array.from({ length: request.count }, () => decide(deps, tenant, type, values, isPerson, now));
  // The copies differ only in their ids: they reference the same entities, as the same caller,
  // under the same type. So what they reference is read once, and the rules that need other
  // entities (references readable, `_parent` needs `_expander`, `reference_query`) are asked once:
  // their answer is the same for every copy (a `reference_query` is a query per reference).
  const first = decided[0]!;
  const targets = await targetsOf(deps, tenant, [...new Set(wantedBy(first.result, caller))], schema.types, readFirst(caller));
  await checkAgainstTargets(tenant, { _id: first.id, properties: first.result.properties }, first.result, caller, type, targets);
  const present = await uploadedSources(deps, tenant, source, values);
  const copies = decided.map((one) => built(tenant, schema, type, one, targets, values, present));
  const keys: KeyRecord[] = [];
  for (const one of decided) keys.push(...(await keyRecords(deps, tenant, one.id, one.result)));
  // Before anything is stored (a failure here leaves nothing to undo), as for every write.
  await beforeCreate(deps, tenant, ...copies);
  await copyObjects(deps, copies);
  try {
    await deps.writer.createMany(tenant.name, copies, keys);
  } catch (error) {
    await undo(deps, tenant, copies);
    throw error;
  }
  await afterCommit(deps, tenant, ...copies);
  return { entities: copies.map(({ entity, written }) => ({ _id: entity._id, properties: groupByProperty(written) })) };
}

interface Decided {
  id: string;
  ctx: WriteContext;
  result: WriteResult;
}

/** One copy under the write rules, as a create of its values would be decided (read-only lifted: the server writes stored values). */
function decide(deps: EntitiesDeps, tenant: Tenant, type: CompiledType, values: readonly CopiedValue[], isPerson: boolean, now: string): Decided {
  const caller = signedIn(tenant);
  const id = newId();
  const ctx = { ...writeContext(deps, caller, copyDefinitions(type.definitions), isPerson, undefined, now), newEntityId: id };
  return { id, ctx, result: applyWrite(undefined, values.map(({ item }) => item), ctx) };
}

/** The object keys of the source's file values that were uploaded, by value id (a never-uploaded one is copied as metadata only). */
async function uploadedSources(deps: EntitiesDeps, tenant: Tenant, source: Entity, values: readonly CopiedValue[]): Promise<Map<string, string>> {
  const keys = values.filter(({ source: value }) => isFileValue(value)).map(({ source: value }) => [value._id, objectKey(tenant.name, source._id, value._id)] as const);
  const found = await Promise.all(keys.map(([, key]) => deps.objects.exists(key)));
  return new Map(keys.filter((_, index) => found[index]));
}

/**
 * A decided copy (checked against its targets) materialised, with its outbox, the values its
 * answer shows, and its file objects to copy. `applyWrite` writes the items in order, one value
 * each, before the values it adds (`_owner`, `_created`): value `i` is the copy of item `i`.
 */
function built(
  tenant: Tenant,
  schema: Schema,
  type: CompiledType,
  { id, ctx, result }: Decided,
  targets: ReadonlyMap<string, Entity['properties']>,
  values: readonly CopiedValue[],
  present: ReadonlyMap<string, string>,
): Copy {
  const entity = { _id: id, properties: result.properties };
  const stored = materialiseWrite(entity, type, targets, ctx);
  const objects = values.flatMap(({ item, source }, index) => {
    const copy = result.written[index]!;
    if (copy.type !== item.type) throw new Error(`duplicate: value ${index} is not the copy of item ${index}`);
    const from = present.get(source._id);
    return from === undefined ? [] : [{ from, to: objectKey(tenant.name, id, copy._id) }];
  });
  const written = [...result.written.map((value) => (value.reference === undefined ? value : (findValue(stored.entity.properties, value._id) ?? value))), ...stored.computed];
  return { entity: stored.entity, stored, ...creationOf(tenant, schema, stored.entity, recordedAs(ctx, 1)), written, objects };
}

/** Runs `work` on each item, `limit` at a time; stops starting new ones after the first failure, which it rethrows once all started ones end. */
async function eachAtMost<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++]!;
      await work(item).catch((error: unknown) => void (failure ??= { error }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.error;
}

/**
 * Copies the file objects of every copy, before any copy is stored: a copy is never visible without
 * its bytes. A failure (storage away: 503) removes the objects copied so far; nothing is stored.
 */
async function copyObjects(deps: EntitiesDeps, copies: readonly Copy[]): Promise<void> {
  const all = copies.flatMap(({ objects }) => objects);
  const copied: string[] = [];
  try {
    await eachAtMost(all, OBJECT_COPIES_AT_ONCE, async ({ from, to }) => {
      // The source may have been removed since it was found: its copy is then as never uploaded.
      if (await deps.objects.copy(from, to)) copied.push(to);
    });
  } catch (error) {
    await removeObjects(deps, copied);
    throw error;
  }
}

/**
 * Removes objects no stored value points at. Best effort: one that cannot be removed now is left to
 * a `delete-object` job, and if that cannot be scheduled either, it is an orphaned object (wasted
 * bytes, never wrong data: no value names it). Never throws.
 */
async function removeObjects(deps: EntitiesDeps, keys: readonly string[]): Promise<void> {
  await eachAtMost(keys, OBJECT_COPIES_AT_ONCE, async (key) => {
    await deps.objects.remove(key).catch(() =>
      deps.jobs
        .enqueue('delete-object', { key }, `delete-object.${key.replaceAll('/', '.')}.undo`, { attempts: 20, backoff: { type: 'exponential', delay: 2000 } })
        .catch((err: unknown) => deps.logger.error({ err, key }, 'duplicate: could not remove or schedule the removal of a copied object')),
    );
  });
}

/**
 * After a failed insert (`createMany` may have stored a prefix of the copies): removes every copy
 * that is stored, through the one write path, and then the objects of those known not stored. The
 * store may be away (that is often why the insert failed): each removal is tried again for
 * `UNDO_MS`; a copy still not known to be gone keeps its objects (it stays whole) and is logged
 * with its id, for an operator (docs/decisions.md "Duplicate": what a lost connection leaves).
 */
async function undo(deps: EntitiesDeps, tenant: Tenant, copies: readonly Copy[]): Promise<void> {
  const deadline = Date.now() + UNDO_MS;
  const left: Copy[] = [];
  const gone: Copy[] = [];
  for (const copy of copies) {
    if (await purged(deps, tenant, copy.entity._id, deadline)) gone.push(copy);
    else left.push(copy);
  }
  if (left.length > 0) {
    deps.logger.error({ db: tenant.name, entities: left.map(({ entity }) => entity._id) }, 'duplicate failed, and these copies could not be removed: they may be stored');
  }
  await invalidate(deps, tenant, ...copies.map(({ entity }) => entity)).catch(() => undefined);
  await removeObjects(deps, gone.flatMap(({ objects }) => objects.map(({ to }) => to)));
}

/** Whether the copy is known not to be stored (never inserted, or removed now). */
async function purged(deps: EntitiesDeps, tenant: Tenant, id: string, deadline: number): Promise<boolean> {
  for (;;) {
    try {
      await deps.writer.update(tenant.name, id, async (current) => ({ next: current ? { kind: 'purge' as const } : { kind: 'keep' as const }, outcome: undefined }));
      return true;
    } catch {
      if (Date.now() >= deadline) return false;
      await sleep(200);
    }
  }
}
