import { schemaVerdict, sharedTypeNames, type SchemaVerdict, type SharedTypeName } from '@entia/domain';
import { MIGRATIONS, SCHEMA_VERSION, SchemaRecords, migrate, type Leases, type MigrateEvent, type MigrateOutcome, type Store } from '@entia/store';

export interface SchemaStatus {
  stored: number | undefined;
  fresh: boolean;
  needed: number;
  verdict: SchemaVerdict;
  applied: { version: number; name: string; at: string }[];
  pending: { version: number; name: string }[];
  /** Type names several types of a database have (made before names were unique): each database's, to resolve by hand. */
  sharedTypeNames: ({ db: string } & SharedTypeName)[];
}

/** What `migrate --status` shows: the stored version, this code's, and what is applied and pending. */
export async function schemaStatus(store: Store): Promise<SchemaStatus> {
  const stored = await new SchemaRecords(store.control).read();
  const from = stored.version ?? 0;
  return {
    stored: stored.version,
    fresh: stored.fresh,
    needed: SCHEMA_VERSION,
    verdict: schemaVerdict(stored, SCHEMA_VERSION),
    applied: stored.applied.map(({ version, name, at }) => ({ version, name, at: at.toISOString() })),
    pending: MIGRATIONS.filter((migration) => migration.version > from).map(({ version, name }) => ({ version, name })),
    sharedTypeNames: await typeNamesShared(store),
  };
}

/** Every database's shared type names: one read of its types each (a database holds tens of types, not thousands). */
async function typeNamesShared(store: Store): Promise<({ db: string } & SharedTypeName)[]> {
  const found: ({ db: string } & SharedTypeName)[] = [];
  for (const database of await store.registry.allDatabases()) {
    if (database.deleting) continue;
    const types = await store.entities(database._id).matching({ filters: [{ property: '_type', field: 'reference', op: 'eq', value: database.meta.entity }], terms: [] }, MAX_TYPES_READ);
    found.push(...sharedTypeNames(types).map((shared) => ({ db: database._id, ...shared })));
  }
  return found;
}

const MAX_TYPES_READ = 10_000;

/**
 * Brings the schema up to this code's version (`@entia/store`'s runner, its lock and its record),
 * holding the writers' `leases` around each entity it rewrites.
 */
export function migrateSchema(
  store: Store,
  leases: Leases,
  onEvent: (event: MigrateEvent) => void,
  options: { holder?: string; signal?: AbortSignal } = {},
): Promise<MigrateOutcome> {
  return migrate(store, { migrations: MIGRATIONS, leases, onEvent, ...options });
}
