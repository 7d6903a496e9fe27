import { keyIsLive, type Entity } from '@entia/domain';
import type { KeyRecord, Store } from '@entia/store';

/**
 * An indexed API key that still opens its database, with its person: undefined when the key was
 * revoked, its person deleted, or a person it depends on deleted (issue 14: rights follow people).
 * One control read and one read of at most `MAX_KEY_SPONSORS + 1` entities by primary key.
 */
export async function liveKey(store: Store, hash: string): Promise<{ key: KeyRecord; person: Entity } | undefined> {
  const key = await store.registry.key(hash);
  if (!key) return undefined;
  const found = await store.entities(key.db).many([key.person, ...(key.sponsors ?? [])]);
  return keyIsLive(key, (id) => found.has(id)) ? { key, person: found.get(key.person)! } : undefined;
}
