import {
  applyWrite,
  findValue,
  groupByProperty,
  isSchemaType,
  typeOf,
  type CompiledType,
  type Entity,
  type Properties,
  type Value,
  type StoredEntity,
  type ValueInput,
  type VerifiedCredential,
  type WriteContext,
  type WriteResult,
} from '@entia/domain';
import { newId, type PasskeyKey } from '@entia/store';
import { checkAgainstDatabase } from '../checks';
import type { EntitiesDeps } from '../deps';
import { isSchemaEntity, schemaOf } from '../definitions';
import { removeAgainLater, uploadsCanWork, withUploads } from '../files';
import { keyRecords } from '../keys';
import { addressable } from '../read';
import { signedIn, type Tenant } from '../tenant';
import { afterCommit, beforeCreate, creationOf, eventsOf, invalidate, outboxOf, publishNow, recordedAs } from './effects';
import { NeedsSchemaLease, inTurn, underSchemaLease } from './turns';
import { materialiseWrite, requestedType, writeContext } from './context';
import { withCounterNumbers } from './counters';

/** What a write by a sign-in or a registration ceremony adds to the person's own. */
export interface CredentialWrite {
  /** The credential the server verified the caller holds (see `WriteContext.verified`). */
  verified: VerifiedCredential;
  /** A passkey's public part, kept in its index record. */
  passkey?: PasskeyKey;
}

export interface CreateOptions extends Partial<CredentialWrite> {
  /** The caller is the person being created (see `WriteContext.registering`): the new entity gets their id. */
  registering?: boolean;
}

/** Answer to creating an entity (interface §7): the values it was created with, by property name. */
export interface WriteOutcome {
  _id: string;
  properties: Record<string, Value[]>;
}

/**
 * Answer to adding values (SPEC §7, §7a: Entu's shape, which its own client reads): the values
 * created or overwritten in the order of the request, then the entity's formula values that changed.
 */
export interface AddOutcome {
  _id: string;
  properties: Value[];
}

/**
 * The entity as it is stored (`materialise`: the targets were loaded to check the references), and
 * the values the response reports: those written and the computed ones that changed.
 */
function completed(
  entity: Entity,
  result: WriteResult,
  targets: ReadonlyMap<string, Properties>,
  type: CompiledType,
  ctx: WriteContext,
): { stored: StoredEntity; written: Value[] } {
  const stored = materialiseWrite(entity, type, targets, ctx);
  // Written references as stored, with their labels (other written values are as the response shows them: a new API key in plain text).
  const written = result.written.map((value) => (value.reference === undefined ? value : (findValue(stored.entity.properties, value._id) ?? value)));
  return { stored, written: [...written, ...stored.computed] };
}

/** POST /{db}/entity: a new entity from the caller's values; the caller owns it. */
export async function createEntity(deps: EntitiesDeps, tenant: Tenant, items: ValueInput[], options: CreateOptions = {}): Promise<WriteOutcome> {
  signedIn(tenant);
  const knownType = requestedType(items);
  const insert = () => insertEntity(deps, tenant, items, knownType, options);
  if (isSchemaType(tenant.record.meta, knownType)) return inTurn(() => underSchemaLease(deps, tenant, insert));
  return inTurn(insert);
}

async function insertEntity(deps: EntitiesDeps, tenant: Tenant, items: ValueInput[], knownType: string | undefined, options: CreateOptions): Promise<WriteOutcome> {
  const caller = signedIn(tenant);
  const schema = await schemaOf(deps, tenant);
  const type = schema.typeOf(knownType);
  const id = options.registering ? caller.personId : newId();
  const ctx = {
    ...writeContext(deps, caller, type.definitions, knownType === tenant.record.meta.person, options.verified),
    newEntityId: id,
    registering: options.registering === true,
  };
  const numberedItems = await withCounterNumbers(deps, tenant, knownType, type.definitions, items, undefined, (trial) => applyWrite(undefined, trial, ctx));
  const result = applyWrite(undefined, numberedItems, ctx);
  const targets = await checkAgainstDatabase(deps, tenant, { _id: id, properties: result.properties }, result, caller, type, schema.types, true);
  const { stored, written: values } = completed({ _id: id, properties: result.properties }, result, targets, type, ctx);
  await uploadsCanWork(deps, values);
  const { entity } = stored;
  const { outbox, history, events } = creationOf(tenant, schema, entity, recordedAs(ctx, 1));
  const keys = await keyRecords(deps, tenant, id, result, options.passkey);
  await beforeCreate(deps, tenant, { entity, outbox, events });
  await deps.writer.create(tenant.name, { stored, outbox, history }, keys);
  await afterCommit(deps, tenant, { entity, outbox, events });
  return { _id: entity._id, properties: groupByProperty(await withUploads(deps, tenant.name, entity._id, values)) };
}

/** POST /{db}/entity/{id}: add values, or overwrite those named by `_id`; all or nothing. */
export async function addValues(deps: EntitiesDeps, tenant: Tenant, id: string, items: ValueInput[], credential?: CredentialWrite): Promise<AddOutcome> {
  // Whether the entity is a definition is known once it is read under its own lease; `_type`
  // never changes, so a write that finds one starts again under the schema lease.
  try {
    return await inTurn(() => changeValues(deps, tenant, id, items, false, credential));
  } catch (error) {
    if (!(error instanceof NeedsSchemaLease)) throw error;
  }
  return inTurn(() => underSchemaLease(deps, tenant, () => changeValues(deps, tenant, id, items, true, credential)));
}

async function changeValues(
  deps: EntitiesDeps,
  tenant: Tenant,
  id: string,
  items: ValueInput[],
  holdsSchemaLease: boolean,
  credential: CredentialWrite | undefined,
): Promise<AddOutcome> {
  const caller = signedIn(tenant);
  const done = await deps.writer.update(tenant.name, id, async (stored) => {
    const current = addressable(tenant, stored, id, true);
    if (!holdsSchemaLease && isSchemaEntity(tenant, current.entity)) throw new NeedsSchemaLease();
    const schema = await schemaOf(deps, tenant);
    const typeId = typeOf(current.entity.properties);
    const type = schema.typeOf(typeId);
    const ctx = writeContext(deps, caller, type.definitions, typeId === tenant.record.meta.person, credential?.verified);
    const numberedItems = await withCounterNumbers(deps, tenant, typeId, type.definitions, items, current.entity, (trial) => applyWrite(current.entity, trial, ctx));
    const result = applyWrite(current.entity, numberedItems, ctx);
    const targets = await checkAgainstDatabase(deps, tenant, { _id: id, properties: result.properties }, result, caller, type, schema.types, false);
    const { stored: next, written: values } = completed({ _id: id, properties: result.properties }, result, targets, type, ctx);
    await uploadsCanWork(deps, values);
    const { entity } = next;
    const outbox = outboxOf(tenant, schema, current.entity, entity, result.removed, recordedAs(ctx, current.version + 1));
    const keys = await keyRecords(deps, tenant, id, result, credential?.passkey);
    await invalidate(deps, tenant, entity);
    return {
      next: { kind: 'replace' as const, stored: next },
      add: outbox,
      keys,
      committed: () => publishNow(deps, tenant.name, eventsOf(outbox)),
      outcome: { entity, values, outbox, removed: result.removed },
    };
  });
  await afterCommit(deps, tenant, done);
  await removeAgainLater(deps, tenant.name, id, done.removed);
  return { _id: id, properties: await withUploads(deps, tenant.name, id, done.values) };
}
