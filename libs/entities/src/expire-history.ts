import type { Store } from '@entia/store';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the history of entities deleted more than `retentionDays` ago, in every database
 * (readable by their last owners until then). Idempotent; resolves with how many
 * entities' histories were removed.
 */
export async function expireHistory(store: Store, retentionDays: number, now = Date.now()): Promise<number> {
  const before = new Date(now - retentionDays * DAY_MS);
  let expired = 0;
  for (const { _id: db } of await store.registry.allDatabases()) expired += await store.history(db).expire(before);
  return expired;
}
