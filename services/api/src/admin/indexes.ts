import type { Deps } from '../deps';

/** Creates the indexes of the control database and of every registered tenant (idempotent). */
export async function ensureIndexes({ store, logger }: Pick<Deps, 'store' | 'logger'>): Promise<void> {
  const registry = store.registry;
  await registry.ensureIndexes();
  const databases = await registry.allDatabases();
  for (const database of databases) await store.entities(database._id).ensureIndexes();
  logger.info({ databases: databases.length }, 'indexes ensured');
}
