import { schemaVerdict, type SchemaVerdict } from '@entia/domain';
import { MIGRATIONS, SCHEMA_VERSION, SchemaRecords, migrate, type Leases, type MigrateEvent, type MigrateOutcome, type Store } from '@entia/store';

export interface SchemaStatus {
  stored: number | undefined;
  fresh: boolean;
  needed: number;
  verdict: SchemaVerdict;
  applied: { version: number; name: string; at: string }[];
  pending: { version: number; name: string }[];
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
  };
}

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
