import {
  DEFAULT_LIMITS,
  applyWrite,
  computeOwnFormulas,
  describeChange,
  findValue,
  groupByProperty,
  assertMayDelete,
  isObjectId,
  labelReferences,
  referencesOf,
  removeValue,
  searchableOf,
  typeOf,
  type Caller,
  type Entity,
  type Properties,
  type PropertyDefinition,
  type Value,
  type ValueInput,
  type WriteContext,
  type WriteResult,
} from '@entia/domain';
import { needsSettling, scheduleSettle, type Schema } from '@entia/derive';
import { newId, type OutboxEntry, type Stored, type Versioned } from '@entia/store';
import { generateApiKey } from '../auth/keys';
import type { Deps } from '../deps';
import { problems } from '../http/problem';
import { signedIn, type Tenant } from '../tenancy';
import { checkAgainstDatabase } from './checks';
import { isDefinition, isSchemaEntity, schemaOf } from './definitions';
import { readableByValue, visible } from './read';
import { objectKeysOf, removeAgainLater, withUploads } from './files';
import { keyRecords } from './keys';

export interface WriteOutcome {
  _id: string;
  properties: Record<string, Value[]>;
}

function context(deps: Deps, caller: Required<Caller>, definitions: ReadonlyMap<string, PropertyDefinition>, isPerson: boolean): WriteContext {
  return {
    caller,
    now: new Date().toISOString(),
    newId,
    definitions,
    limits: { ...DEFAULT_LIMITS, maxStringLength: deps.config.MAX_STRING_LENGTH, maxFileSize: deps.config.MAX_FILE_BYTES },
    isPerson,
    newApiKey: generateApiKey,
  };
}

/**
 * The entity as it is stored: its new references labelled with their targets' names (the targets
 * were loaded to check them), then its own formulas recomputed (in the same request, SPEC §9).
 * `written`: the values the response reports, those written and the computed ones that changed.
 */
function completed(
  entity: Entity,
  result: WriteResult,
  targets: ReadonlyMap<string, Properties>,
  definitions: ReadonlyMap<string, PropertyDefinition>,
  ctx: WriteContext,
): { entity: Entity; written: Value[] } {
  const labelled = labelReferences(entity.properties, targets).properties;
  const computed = computeOwnFormulas({ _id: entity._id, properties: labelled }, definitions, { at: ctx.now, by: ctx.caller.personId }, ctx.newId);
  // Written references as stored, with their labels (other written values are as the response shows them: a new API key in plain text).
  const written = result.written.map((value) => (value.reference === undefined ? value : (findValue(computed.properties, value._id) ?? value)));
  return { entity: { _id: entity._id, properties: computed.properties }, written: [...written, ...computed.changed] };
}

/**
 * What the write leaves for the worker, committed with it (SPEC §9): telling the entities that
 * read the change (when the schema says anyone may), removing the objects of file values that are
 * gone, and rebuilding the entities of a type whose definitions changed.
 */
function outboxOf(tenant: Tenant, schema: Schema, before: Entity | undefined, after: Entity | undefined, gone: readonly Value[]): OutboxEntry[] {
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
const invalidate = (deps: Deps, tenant: Tenant, entity: Entity) => deps.generations.touch(tenant.name, [entity._id], isSchemaEntity(tenant, entity));

/** After the commit: nothing here can fail the request, the write stands and its effects are recorded. */
async function afterCommit(deps: Deps, tenant: Tenant, entity: Entity, outbox: readonly OutboxEntry[]): Promise<void> {
  await invalidate(deps, tenant, entity).catch((err: unknown) => {
    deps.logger.error({ err, db: tenant.name, entity: entity._id }, 'could not invalidate cached copies after a write');
  });
  if (outbox.length > 0) await scheduleSettle(deps, tenant.name, [entity._id], 0);
}

/** The stored entity as the caller may address it for a write, or 404 (existence is not revealed). */
function addressable(tenant: Tenant, stored: Stored | undefined, id: string, writing: boolean): Versioned {
  if (!visible(stored !== undefined && !stored.deleted ? stored : undefined, tenant.caller, writing)) throw problems.notFound(`No entity ${id}.`);
  return stored!;
}

/**
 * Writes of one database's property definitions take turns under this lease (besides the entity's
 * own), because a definition is checked against the other definitions of its type (`checkSiblings`:
 * unique name, at most MAX_FORMULAS_PER_TYPE formulas): two written at once would each pass without
 * seeing the other. Definitions are written rarely, so one lease per database costs nothing.
 * Always taken before an entity's lease, never after, so no two writers wait for each other.
 */
const schemaLease = (tenant: Tenant) => `${tenant.name}/definitions`;

/** Thrown from a plan that finds it is changing a definition without the schema lease: retry under it. */
class NeedsSchemaLease extends Error {}

export async function createEntity(deps: Deps, tenant: Tenant, items: ValueInput[]): Promise<WriteOutcome> {
  signedIn(tenant);
  const typeId = items.find((item) => item.type === '_type')?.reference;
  const knownType = typeof typeId === 'string' && isObjectId(typeId) ? typeId : undefined;
  if (knownType === tenant.record.meta.property) return deps.leases.hold(schemaLease(tenant), () => insertEntity(deps, tenant, items, knownType));
  return insertEntity(deps, tenant, items, knownType);
}

async function insertEntity(deps: Deps, tenant: Tenant, items: ValueInput[], knownType: string | undefined): Promise<WriteOutcome> {
  const caller = signedIn(tenant);
  const schema = await schemaOf(deps, tenant);
  const definitions = schema.definitionsOf(knownType);
  const id = newId();
  const ctx = { ...context(deps, caller, definitions, knownType === tenant.record.meta.person), newEntityId: id };
  const result = applyWrite(undefined, items, ctx);
  const targets = await checkAgainstDatabase(tenant, { _id: id, properties: result.properties }, result, caller, definitions, schema.types);
  const { entity, written: values } = completed({ _id: id, properties: result.properties }, result, targets, definitions, ctx);
  const outbox = outboxOf(tenant, schema, undefined, entity, []);
  const keys = await keyRecords(deps, tenant, id, result);
  await invalidate(deps, tenant, entity);
  await deps.writer.create(tenant.name, entity, searchableOf(definitions), { add: outbox, keys });
  await afterCommit(deps, tenant, entity, outbox);
  return { _id: entity._id, properties: groupByProperty(await withUploads(deps, tenant.name, entity._id, values)) };
}

export async function addValues(deps: Deps, tenant: Tenant, id: string, items: ValueInput[]): Promise<WriteOutcome> {
  // Whether the entity is a definition is known once it is read under its own lease; `_type`
  // never changes, so a write that finds one starts again under the schema lease.
  try {
    return await changeValues(deps, tenant, id, items, false);
  } catch (error) {
    if (!(error instanceof NeedsSchemaLease)) throw error;
  }
  return deps.leases.hold(schemaLease(tenant), () => changeValues(deps, tenant, id, items, true));
}

async function changeValues(deps: Deps, tenant: Tenant, id: string, items: ValueInput[], holdsSchemaLease: boolean): Promise<WriteOutcome> {
  const caller = signedIn(tenant);
  const done = await deps.writer.update(tenant.name, id, async (stored) => {
    const current = addressable(tenant, stored, id, true);
    if (!holdsSchemaLease && isDefinition(tenant, current.entity)) throw new NeedsSchemaLease();
    const schema = await schemaOf(deps, tenant);
    const type = typeOf(current.entity.properties);
    const definitions = schema.definitionsOf(type);
    const ctx = context(deps, caller, definitions, type === tenant.record.meta.person);
    const result = applyWrite(current.entity, items, ctx);
    const targets = await checkAgainstDatabase(tenant, { _id: id, properties: result.properties }, result, caller, definitions, schema.types);
    const { entity, written: values } = completed({ _id: id, properties: result.properties }, result, targets, definitions, ctx);
    const outbox = outboxOf(tenant, schema, current.entity, entity, result.removed);
    const keys = await keyRecords(deps, tenant, id, result);
    await invalidate(deps, tenant, entity);
    return {
      next: { kind: 'replace' as const, entity, searchable: searchableOf(definitions) },
      add: outbox,
      keys,
      outcome: { entity, values, outbox, removed: result.removed },
    };
  });
  await afterCommit(deps, tenant, done.entity, done.outbox);
  await removeAgainLater(deps, tenant.name, id, done.removed);
  return { _id: id, properties: groupByProperty(await withUploads(deps, tenant.name, id, done.values)) };
}

export async function deleteEntity(deps: Deps, tenant: Tenant, id: string): Promise<{ deleted: true }> {
  const caller = signedIn(tenant);
  const done = await deps.writer.update(tenant.name, id, async (stored) => {
    const current = addressable(tenant, stored, id, false);
    assertMayDelete(current.entity.properties, caller);
    const values = Object.values(current.entity.properties).flat();
    const outbox = outboxOf(tenant, await schemaOf(deps, tenant), current.entity, undefined, values);
    await invalidate(deps, tenant, current.entity);
    return {
      next: { kind: 'tombstone' as const },
      add: outbox,
      revokeKeys: (current.entity.properties._api_key ?? []).map((key) => key._id),
      outcome: { entity: current.entity, outbox, values },
    };
  });
  await afterCommit(deps, tenant, done.entity, done.outbox);
  await removeAgainLater(deps, tenant.name, id, done.values);
  return { deleted: true };
}

export async function deleteValue(deps: Deps, tenant: Tenant, valueId: string): Promise<{ deleted: true }> {
  const caller = signedIn(tenant);
  const holder = (await readableByValue(tenant, valueId, true)).entity._id;
  const done = await deps.writer.update(tenant.name, holder, async (stored) => {
    const current = addressable(tenant, stored, holder, true);
    // It may have been deleted while this request waited for its turn.
    if (!findValue(current.entity.properties, valueId)) throw problems.notFound(`No property ${valueId}.`);
    const schema = await schemaOf(deps, tenant);
    const definitions = schema.definitionsOf(typeOf(current.entity.properties));
    const { properties: remaining, removed } = removeValue(current.entity, valueId, caller, definitions);
    const stamp = { at: new Date().toISOString(), by: caller.personId };
    const { properties } = computeOwnFormulas({ _id: holder, properties: remaining }, definitions, stamp, newId);
    const entity: Entity = { _id: holder, properties };
    const outbox = outboxOf(tenant, schema, current.entity, entity, [removed]);
    await invalidate(deps, tenant, entity);
    return {
      next: { kind: 'replace' as const, entity, searchable: searchableOf(definitions) },
      add: outbox,
      revokeKeys: removed.type === '_api_key' ? [removed._id] : [],
      outcome: { entity, outbox, removed },
    };
  });
  await afterCommit(deps, tenant, done.entity, done.outbox);
  await removeAgainLater(deps, tenant.name, holder, [done.removed]);
  return { deleted: true };
}
