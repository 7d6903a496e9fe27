import type { Store } from '@entia/store';
import { registeredDatabase } from './database';
import { deleteDatabaseKeys, type KeyScanner } from './redis-keys';

export interface DeleteDatabaseDeps {
  store: Store;
  objects: { removePrefix(prefix: string): Promise<number> };
  /** Every Redis that may hold keys of the database (the queue's and, when separate, the cache's). */
  redis: readonly KeyScanner[];
  redisPrefix: string;
}

export type DeletionStep = 'marked' | 'credentials' | 'pending' | 'redis' | 'objects' | 'data' | 'registry';

/**
 * Deletes a database and every trace of it, in an order that makes a cut-short run safe to run
 * again (each step is idempotent, and the registry record, which is how a re-run finds the
 * database, goes last):
 * 1. the record is marked `deleting`: processes that have not cached it serve it no more;
 * 2. its credentials' records go: every token of its persons stops within KEY_RECHECK_MS, in
 *    every API process (the cached record notwithstanding), and no sign-in works;
 * 3. its pending marks, 4. its Redis keys, 5. its file objects;
 * 6. its MongoDB database is dropped (entities, history, webhook deliveries), and the marks once
 *    more (a job that ran meanwhile may have left one);
 * 7. the registry record is removed: the name is free again.
 */
export async function deleteDatabase(deps: DeleteDatabaseDeps, name: string, onStep: (step: DeletionStep, detail: string) => void = () => undefined): Promise<void> {
  const { store } = deps;
  const record = await registeredDatabase(store, name);
  const registry = store.registry;
  if (!record.deleting) await registry.markDeleting(name);
  onStep('marked', record.deleting ? 'resuming an earlier deletion' : 'no longer served');
  onStep('credentials', `${await registry.removeKeysOf(name)} removed`);
  onStep('pending', `${await registry.pending.forgetDatabase(name)} marks removed`);
  let keys = 0;
  for (const redis of deps.redis) keys += await deleteDatabaseKeys(redis, deps.redisPrefix, name);
  onStep('redis', `${keys} keys removed`);
  onStep('objects', `${await deps.objects.removePrefix(`${name}/`)} objects removed`);
  await store.database(name).dropDatabase();
  await registry.pending.forgetDatabase(name);
  onStep('data', 'database dropped');
  await registry.unregister(name);
  onStep('registry', 'record removed');
}
