import { DATABASE_SPELLING_PATTERN, bootstrapDatabase, indexed, isDatabaseName, type MetaTypes } from '@entia/domain';
import { SCHEMA_VERSION, SchemaRecords, newId, type Store } from '@entia/store';
import { generateApiKey } from './api-keys';
import { historyRows } from './write/effects';

export class CreateDatabaseError extends Error {
  override readonly name = 'CreateDatabaseError';
}

export interface CreatedDatabase {
  db: string;
  personId: string;
  /** Shown once: only its hash is kept. */
  apiKey: string;
  /** Ids of the meta-types, e.g. `entity` to create new types with. */
  types: MetaTypes;
}

/**
 * Creates a tenant database (SPEC §4, §12): claims the name in the registry, writes the meta-types,
 * their definitions, the `database` entity and the first person with an API key. On any failure
 * after the claim, everything is undone, so a name is either fully created or free.
 */
export async function createDatabase(store: Store, name: string, ownerName: string): Promise<CreatedDatabase> {
  if (!isDatabaseName(name, store.controlDbName)) {
    throw new CreateDatabaseError(`"${name}" is not a valid database name: ${DATABASE_SPELLING_PATTERN}, not a reserved name`);
  }
  const now = new Date().toISOString();
  const plan = bootstrapDatabase({ name, ownerName, now, newId });
  const key = generateApiKey();
  const keyValueId = newId();
  const owner = plan.entities.find((entity) => entity._id === plan.owner)!;
  owner.properties._api_key = [{ _id: keyValueId, type: '_api_key', string: key.hash, created: { at: now, by: plan.owner } }];

  const registry = store.registry;
  await registry.ensureIndexes();
  // The first database of an installation makes it one at this code's schema version (its indexes
  // and documents are made current here); an existing installation is left to `entia-admin migrate`.
  await new SchemaRecords(store.control).claimFresh(SCHEMA_VERSION);
  if ((await store.database(name).listCollections({}, { nameOnly: true }).toArray()).length > 0) {
    throw new CreateDatabaseError(`database "${name}" already exists`);
  }
  // A database of this name deleted earlier may still be known with its sort indexes.
  store.sortIndexes.forget(name);
  if (!(await registry.register({ _id: name, meta: plan.meta, databaseEntity: plan.databaseEntity, createdAt: new Date(now) }))) {
    throw new CreateDatabaseError(`database "${name}" already exists`);
  }
  try {
    const entities = store.entities(name);
    await store.ensureTenantIndexes(name);
    // Their creation is history too; recorded first, so a failure leaves no entity without it.
    const recorded = { author: { at: now, by: plan.owner }, version: 1 };
    await store.history(name).record(plan.entities.flatMap((entity) => historyRows(undefined, entity, recorded, () => true)));
    await entities.insert(plan.entities.map((entity) => ({ stored: indexed(entity, plan.searchable(entity)) })));
    await registry.addKey({ _id: key.hash, db: name, person: plan.owner, value: keyValueId, createdAt: new Date(now) });
  } catch (error) {
    await store.database(name).dropDatabase().catch(() => undefined);
    await registry.removeKey(name, keyValueId).catch(() => undefined);
    await registry.unregister(name);
    throw error;
  }
  return { db: name, personId: plan.owner, apiKey: key.plaintext, types: plan.meta };
}
