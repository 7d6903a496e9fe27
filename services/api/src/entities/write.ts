import {
  DEFAULT_LIMITS,
  applyWrite,
  computeOwnFormulas,
  findValue,
  groupByProperty,
  hasRight,
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
import { describeChange } from '@entia/derive';
import { newId } from '@entia/store';
import { generateApiKey } from '../auth/keys';
import type { Deps } from '../deps';
import { HttpProblem } from '../http/problem';
import { signedIn, type Tenant } from '../tenancy';
import { checkAgainstDatabase } from './checks';
import { definitionsOf, isDefinition, isSchemaEntity, schemaOf } from './definitions';
import { readable, readableByValue } from './read';
import { removeObjects, withUploads } from './files';

export interface WriteOutcome {
  _id: string;
  properties: Record<string, Value[]>;
}

// Compare-and-set writes retry when another writer got in between; past this, report a conflict.
const MAX_ATTEMPTS = 5;

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
 * After a write is stored and before it is acknowledged: cached responses showing the entity
 * are invalidated (a caller always reads its own writes, SPEC §10), and the worker is told, to
 * recompute the entities that read it. A failure to schedule is logged, not reported: the write
 * stands, and POST /api/{db}/aggregate repairs what was missed.
 */
async function written(deps: Deps, tenant: Tenant, before: Entity | undefined, after: Entity | undefined): Promise<void> {
  const entity = (after ?? before)!;
  await deps.generations.touch(tenant.name, [entity._id], isSchemaEntity(tenant, entity));
  const change = describeChange(tenant.name, before, after, 0);
  if (change) {
    await deps.jobs.enqueue('changed', change).catch((err: unknown) => {
      deps.logger.error({ err, db: tenant.name, entity: entity._id }, 'could not schedule the recomputation of dependents');
    });
  }
  await reindexTypesOf(deps, tenant, before, after);
}

/**
 * Stores an entity together with the index entries of the API keys the write generated. Keys are
 * indexed first and withdrawn if the entity write does not happen, so a key is never usable
 * without its value, and a stored value never lacks its key.
 */
async function storeWithKeys(deps: Deps, tenant: Tenant, entityId: string, result: WriteResult, write: () => Promise<boolean>): Promise<boolean> {
  const registry = deps.store.registry;
  const records = result.newKeys.map((key) => ({ _id: key.hash, db: tenant.name, person: entityId, value: key.valueId, createdAt: new Date() }));
  for (const record of records) await registry.addKey(record);
  let stored = false;
  try {
    stored = await write();
    return stored;
  } finally {
    if (!stored) for (const record of records) await registry.removeKey(tenant.name, record.value);
  }
}

export async function createEntity(deps: Deps, tenant: Tenant, items: ValueInput[]): Promise<WriteOutcome> {
  const caller = signedIn(tenant);
  const typeId = items.find((item) => item.type === '_type')?.reference;
  const knownType = typeof typeId === 'string' && /^[0-9a-f]{24}$/.test(typeId) ? typeId : undefined;
  const schema = await schemaOf(deps, tenant);
  const definitions = schema.definitionsOf(knownType);
  const id = newId();
  const ctx = { ...context(deps, caller, definitions, knownType === tenant.record.meta.person), newEntityId: id };
  const result = applyWrite(undefined, items, ctx);
  const targets = await checkAgainstDatabase(tenant, { _id: id, properties: result.properties }, result, caller, definitions, schema.types);
  const { entity, written: values } = completed({ _id: id, properties: result.properties }, result, targets, definitions, ctx);
  await storeWithKeys(deps, tenant, entity._id, result, async () => {
    await tenant.entities.insert([entity], () => searchableOf(definitions));
    return true;
  });
  await written(deps, tenant, undefined, entity);
  return { _id: entity._id, properties: groupByProperty(await withUploads(deps, tenant.name, entity._id, values)) };
}

/**
 * After a definition was written or removed, the entities of its type(s) get their search index
 * rebuilt by the worker. The write itself stands either way; a failure to schedule is logged (a
 * whole-database rebuild repairs it).
 */
async function reindexTypesOf(deps: Deps, tenant: Tenant, ...definitions: (Entity | undefined)[]): Promise<void> {
  const types = new Set(definitions.flatMap((entity) => (entity && isDefinition(tenant, entity) ? referencesOf(entity.properties, '_parent') : [])));
  for (const type of types) {
    await deps.jobs.enqueue('reindex', { db: tenant.name, type }).catch((err: unknown) => {
      deps.logger.error({ err, db: tenant.name, type }, 'could not schedule the reindex of a type');
    });
  }
}

/** Retries `attempt` while a concurrent writer wins the compare-and-set. */
async function withRetries<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let n = 1; n <= MAX_ATTEMPTS; n++) {
    const outcome = await attempt();
    if (outcome !== undefined) return outcome;
  }
  throw new HttpProblem(409, 'conflict', 'Conflict', 'The entity changed too often while writing; try again.');
}

export function addValues(deps: Deps, tenant: Tenant, id: string, items: ValueInput[]): Promise<WriteOutcome> {
  const caller = signedIn(tenant);
  return withRetries(async () => {
    const current = await readable(tenant, id, true);
    const schema = await schemaOf(deps, tenant);
    const definitions = schema.definitionsOf(typeOf(current.entity.properties));
    const isPerson = typeOf(current.entity.properties) === tenant.record.meta.person;
    const ctx = context(deps, caller, definitions, isPerson);
    const result = applyWrite(current.entity, items, ctx);
    const targets = await checkAgainstDatabase(tenant, { _id: id, properties: result.properties }, result, caller, definitions, schema.types);
    const { entity, written: values } = completed({ _id: id, properties: result.properties }, result, targets, definitions, ctx);
    const stored = await storeWithKeys(deps, tenant, id, result, () => tenant.entities.replace(entity, current.version, searchableOf(definitions)));
    if (!stored) return undefined;
    await written(deps, tenant, current.entity, entity);
    await removeObjects(deps, tenant.name, id, result.removed);
    return { _id: id, properties: groupByProperty(await withUploads(deps, tenant.name, id, values)) };
  });
}

export function deleteEntity(deps: Deps, tenant: Tenant, id: string): Promise<{ deleted: true }> {
  const caller = signedIn(tenant);
  return withRetries(async () => {
    const current = await readable(tenant, id);
    if (!hasRight(current.entity.properties, caller, 'owner')) {
      throw new HttpProblem(403, 'forbidden', 'Forbidden', 'Deleting an entity needs the owner right.');
    }
    // Keys are revoked before their values go: a failure in between leaves a dead key, never a live orphan.
    for (const key of current.entity.properties._api_key ?? []) await deps.store.registry.removeKey(tenant.name, key._id);
    if (!(await tenant.entities.delete(id, current.version))) return undefined;
    await written(deps, tenant, current.entity, undefined);
    await removeObjects(deps, tenant.name, id, Object.values(current.entity.properties).flat());
    return { deleted: true as const };
  });
}

export function deleteValue(deps: Deps, tenant: Tenant, valueId: string): Promise<{ deleted: true }> {
  const caller = signedIn(tenant);
  return withRetries(async () => {
    const current = await readableByValue(tenant, valueId, true);
    const definitions = await definitionsOf(deps, tenant, typeOf(current.entity.properties));
    const { properties: remaining, removed } = removeValue(current.entity, valueId, caller, definitions);
    const stamp = { at: new Date().toISOString(), by: caller.personId };
    const { properties } = computeOwnFormulas({ _id: current.entity._id, properties: remaining }, definitions, stamp, newId);
    if (removed.type === '_api_key') await deps.store.registry.removeKey(tenant.name, removed._id);
    const entity: Entity = { _id: current.entity._id, properties };
    if (!(await tenant.entities.replace(entity, current.version, searchableOf(definitions)))) return undefined;
    await written(deps, tenant, current.entity, entity);
    await removeObjects(deps, tenant.name, entity._id, [removed]);
    return { deleted: true as const };
  });
}
