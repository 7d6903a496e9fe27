import { checkRefreshable, first, keyIsLive, unauthenticated, type Entity } from '@entia/domain';
import type { KeyRecord, Store } from '@entia/store';
import { hashApiKey } from './api-keys';

/**
 * An indexed credential that still opens its database, with its person: undefined when it was
 * revoked, its person deleted, or a person it depends on deleted (rights follow people).
 * One control read and one read of at most `MAX_KEY_SPONSORS + 1` entities by primary key.
 */
export async function liveKey(store: Store, hash: string): Promise<{ key: KeyRecord; person: Entity } | undefined> {
  const key = await store.registry.key(hash);
  return key && liveRecord(store, key);
}

/** A credential record read already, with its person, when it still opens its database (see `liveKey`). */
export async function liveRecord(store: Store, key: KeyRecord): Promise<{ key: KeyRecord; person: Entity } | undefined> {
  if (key.revokedAt) return undefined;
  const found = await store.entities(key.db).many([key.person, ...(key.sponsors ?? [])]);
  return keyIsLive(key, (id) => found.has(id)) ? { key, person: found.get(key.person)! } : undefined;
}

/** What a credential opens (interface §5): its database and the person it acts as there. */
export interface SignIn {
  /** The credential's record id: the token names it, so revoking the credential ends the token. */
  kid: string;
  db: string;
  person: { _id: string; name: string };
}

/** The sign-in a live credential gives. */
export function signInOf({ key, person }: { key: KeyRecord; person: Entity }): SignIn {
  return { kid: key._id, db: key.db, person: { _id: key.person, name: first(person.properties, 'name')?.string ?? '' } };
}

/**
 * The exchange of an API key (`GET /api/auth`), up to the token the caller signs: the key must be
 * live and, when `db` is asked for, open that database. One refusal for revoked, unknown and
 * orphaned keys alike, so a refusal tells nothing of which.
 */
export async function signInWithApiKey(store: Store, apiKey: string, db: string | undefined): Promise<SignIn> {
  const live = await liveKey(store, hashApiKey(apiKey));
  // Another kind of credential's record id is a hash nobody can give the preimage of; refused all the same.
  if (!live || live.key.kind !== undefined) throw unauthenticated('Unknown or revoked API key.');
  if (db !== undefined && db !== live.key.db) throw unauthenticated(`This API key has no account in database "${db}".`);
  return signInOf(live);
}

/**
 * The sign-in a token's refresh gives (`GET /api/auth/refresh`): its credential read again now, not
 * from the revocation cache, so a key revoked a moment ago refreshes nothing; and the sign-in
 * within `SIGN_IN_CEILING_SECONDS` of when the credential was shown.
 */
export async function refreshSignIn(store: Store, kid: string, authTime: number, now = Date.now()): Promise<SignIn> {
  checkRefreshable(authTime, Math.floor(now / 1000));
  const live = await liveKey(store, kid);
  if (!live) throw unauthenticated('The credential this token came from was revoked: sign in again.');
  return signInOf(live);
}
