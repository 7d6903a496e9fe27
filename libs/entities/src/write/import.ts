import {
  DomainError,
  applyWrite,
  invalid,
  isSchemaType,
  type CompiledType,
  type Properties,
  type StoredEntity,
  type ValueInput,
  type WriteContext,
  type WriteResult,
} from '@entia/domain';
import { newId, type KeyRecord, type NewEntity } from '@entia/store';
import { checkAgainstTargets, targetsRead, wantedBy } from '../checks';
import type { EntitiesDeps } from '../deps';
import { schemaOf } from '../definitions';
import type { Schema } from '../schema';
import { keyRecords } from '../keys';
import { signedIn, type Tenant } from '../tenant';
import { afterCommit, beforeCreate, creationOf, recordedAs, type Written } from './effects';
import { materialiseWrite, requestedType, writeContext } from './context';
import type { ImportSession } from './import-session';

/** One entity to import: its values as a create takes them. */
export interface ImportInput {
  values: ValueInput[];
  /** When it was created elsewhere (its `_created`); now when absent. */
  createdAt?: string;
}

/** How many entities one insert carries, unless the caller says otherwise. */
export const IMPORT_BATCH = 500;

export interface ImportOptions {
  /** Entities per insert (`IMPORT_BATCH`). */
  batch?: number;
  /** Shared by the imports of one run: targets seen before are not read again. */
  session?: ImportSession;
}

/** The refusal of input `index`, its pointers and message placed in the whole import. */
function refusalOf(index: number, error: unknown): unknown {
  if (!(error instanceof DomainError)) return error;
  const errors = error.errors.map((field) => (field.pointer === undefined ? field : { ...field, pointer: `/${index}/values${field.pointer}` }));
  return new DomainError(error.kind, `Input ${index}: ${error.message}`, errors, error.retryAfterSeconds);
}

/**
 * Creates many entities, as many creates would: each input checked by the same rules (values,
 * rights, references, `reference_query`s) and materialised the same way, then inserted in batches
 * through the one write path (`EntityWriter.createMany`, each entity with its outbox). What a
 * batch references is loaded once for the batch. Not atomic across batches: a refusal or failure
 * leaves the batches before it stored (a refused batch stores nothing), as a run of creates would.
 * Types and property definitions are refused: each is checked against the
 * others of its kind under the database's schema lease, so they are created one by one (`createEntity`). No
 * upload URL is signed: an import brings values, not objects. Resolves to the new ids, in input
 * order.
 */
export async function importEntities(deps: EntitiesDeps, tenant: Tenant, inputs: readonly ImportInput[], options: ImportOptions = {}): Promise<string[]> {
  signedIn(tenant);
  const size = Math.max(1, options.batch ?? IMPORT_BATCH);
  const ids: string[] = [];
  for (let start = 0; start < inputs.length; start += size) ids.push(...(await importBatch(deps, tenant, inputs.slice(start, start + size), start, options.session)));
  return ids;
}

/** The batch's targets: those the session saw, the rest read at once (one `$in`) and remembered. */
async function batchTargets(tenant: Tenant, ids: readonly string[], types: Schema['types'], session: ImportSession | undefined): Promise<Map<string, Properties>> {
  if (!session) return targetsRead(tenant, ids, types);
  const { known, missing } = session.split(ids);
  const loaded = await targetsRead(tenant, missing, types);
  session.remember(loaded);
  return new Map([...known, ...loaded]);
}

/** An input the write rules accepted, before anything else is loaded. */
interface Decided {
  id: string;
  type: CompiledType;
  ctx: WriteContext;
  result: WriteResult;
}

/** Input `index` under the write rules, as a create of it would be decided. */
function decide(deps: EntitiesDeps, tenant: Tenant, schema: Schema, input: ImportInput, index: number, now: string): Decided {
  const caller = signedIn(tenant);
  const { meta } = tenant.record;
  try {
    const knownType = requestedType(input.values);
    // Checked against the others of their kind under the schema lease (unique names): one by one.
    if (isSchemaType(meta, knownType)) throw invalid('Types and property definitions are not imported: create them one by one.');
    const type = schema.typeOf(knownType);
    const id = newId();
    const ctx = { ...writeContext(deps, caller, type.definitions, knownType === meta.person, undefined, input.createdAt ?? now), newEntityId: id };
    return { id, type, ctx, result: applyWrite(undefined, input.values, ctx) };
  } catch (error) {
    throw refusalOf(index, error);
  }
}

/** A decided input checked against its targets and materialised, with its outbox: ready to insert. */
async function built(tenant: Tenant, schema: Schema, { id, type, ctx, result }: Decided, index: number, targets: ReadonlyMap<string, Properties>): Promise<Written & NewEntity> {
  const entity = { _id: id, properties: result.properties };
  try {
    await checkAgainstTargets(tenant, entity, result, ctx.caller, type, targets);
  } catch (error) {
    throw refusalOf(index, error);
  }
  const stored = materialiseWrite(entity, type, targets, ctx);
  return { entity: stored.entity, stored, ...creationOf(tenant, schema, stored.entity, recordedAs(ctx, 1)) };
}

async function importBatch(deps: EntitiesDeps, tenant: Tenant, inputs: readonly ImportInput[], first: number, session: ImportSession | undefined): Promise<string[]> {
  const caller = signedIn(tenant);
  const schema = await schemaOf(deps, tenant);
  const now = new Date().toISOString();
  const decided = inputs.map((input, offset) => decide(deps, tenant, schema, input, first + offset, now));
  // At most one read for the batch's targets (one `$in`: FerretDB scans the collection for it, MongoDB reads its `_id` index).
  const targets = await batchTargets(tenant, [...new Set(decided.flatMap(({ result }) => wantedBy(result, caller)))], schema.types, session);
  const written: (Written & NewEntity)[] = [];
  const keys: KeyRecord[] = [];
  for (const [offset, one] of decided.entries()) {
    written.push(await built(tenant, schema, one, first + offset, targets));
    keys.push(...(await keyRecords(deps, tenant, one.id, one.result)));
  }
  await beforeCreate(deps, tenant, ...written);
  await deps.writer.createMany(tenant.name, written, keys);
  await afterCommit(deps, tenant, ...written);
  session?.remember(written.map(({ entity }) => [entity._id, entity.properties] as const));
  return written.map(({ entity }) => entity._id);
}

/**
 * Entities as `importEntities` would insert them — checked by the same rules and materialised —
 * without writing them: for a tool measuring the store's own insert of what the application
 * stores (the benchmark's driver ceiling). The entities they may reference are `referenced` and
 * the types, loaded once here, so that building one reads nothing more unless its type has a
 * `reference_query`. No API key is indexed: an entity generating one is refused.
 */
export async function entityBuilder(deps: EntitiesDeps, tenant: Tenant, referenced: readonly string[]): Promise<(input: ImportInput) => Promise<StoredEntity>> {
  const caller = signedIn(tenant);
  const schema = await schemaOf(deps, tenant);
  const targets = await targetsRead(tenant, [...referenced, caller.personId, ...schema.types.keys()], schema.types);
  return async (input) => {
    const decided = decide(deps, tenant, schema, input, 0, new Date().toISOString());
    if (decided.result.credentials.length > 0) throw invalid('An entity built without being written creates no credential.');
    const { stored } = await built(tenant, schema, decided, 0, targets);
    return stored;
  };
}
