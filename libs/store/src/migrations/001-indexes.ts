import type { Migration, MigrationContext } from './types';

/**
 * The indexes the code defines (`indexes.ts`), in the control database and every tenant: what the
 * API used to build in the background at every start, now a step run once per version.
 * Building one that exists is a listing, so a later run (or a new definition) costs little.
 */
export const indexes: Migration = {
  version: 1,
  name: 'indexes',
  up: ensureEveryIndex,
};

/** Builds every index `indexes.ts` defines that a database lacks: migration 1, and any that adds one. */
export async function ensureEveryIndex({ store, databases, progress, keepLock }: MigrationContext): Promise<void> {
  const control = await store.registry.ensureIndexes();
  progress({ database: store.controlDbName, message: control.length > 0 ? `built ${control.join(', ')}` : 'indexes present' });
  for (const db of databases) {
    await keepLock();
    const built = await store.ensureTenantIndexes(db);
    progress({ database: db, message: built.length > 0 ? `built ${built.join(', ')}` : 'indexes present' });
  }
}
