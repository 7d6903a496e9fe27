import { isDatabaseName, isDatabaseSpelling } from '@entia/domain';
import type { DatabaseRecord, Store } from '@entia/store';
import { AdminError } from './errors';

/**
 * A name an operator typed, checked before it reaches any query: a clear refusal (exit 1), never a
 * `$` in a filter; quoted as JSON so a control character in it cannot rewrite the terminal.
 */
export function checkedDatabaseName(store: Store, name: string): string {
  if (!isDatabaseSpelling(name)) throw new AdminError(`${JSON.stringify(name)} is not a database name ([a-z][a-z0-9_]{2,62})`);
  if (!isDatabaseName(name, store.controlDbName)) throw new AdminError(`${JSON.stringify(name)} is a reserved name, not a tenant database`);
  return name;
}

/** The registry record of a database, whether it is being deleted or not; a clear refusal when there is none. */
export async function registeredDatabase(store: Store, name: string): Promise<DatabaseRecord> {
  const record = await store.registry.database(checkedDatabaseName(store, name));
  if (!record) throw new AdminError(`no database "${name}"`);
  return record;
}

/** A database that is served (registered and not being deleted). */
export async function servedDatabase(store: Store, name: string): Promise<DatabaseRecord> {
  const record = await registeredDatabase(store, name);
  if (record.deleting) throw new AdminError(`database "${name}" is being deleted: run delete-database ${name} again to finish`);
  return record;
}
