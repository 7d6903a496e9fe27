import { unauthenticated, type Value } from '@entia/domain';
import type { PasskeyKey } from '@entia/store';
import type { EntitiesDeps } from './deps';
import { credentialRecordId } from './keys';
import { liveKey, signInOf, type SignIn } from './sign-in';
import { signedIn, type Tenant } from './tenant';
import { addValues } from './write/values';

/** A passkey as its registration ceremony verified it. */
export interface RegisteredPasskey extends PasskeyKey {
  /** The credential id, base64url. */
  id: string;
}

/** The caller's person and the ids of the passkeys they hold (a registration excludes them: one authenticator, one passkey). */
export async function passkeyHolder(tenant: Tenant): Promise<{ personId: string; name: string; passkeys: string[] }> {
  const { personId } = signedIn(tenant);
  const person = (await tenant.entities.get(personId))?.entity;
  if (!person) throw unauthenticated('The person this token signs in as was deleted.');
  const strings = (name: string) => (person.properties[name] ?? []).flatMap((value) => (value.string === undefined ? [] : [value.string]));
  return { personId, name: strings('name')[0] ?? '', passkeys: strings('_passkey') };
}

/** Adds a verified passkey to the caller's own person: a `_passkey` value, its public part in the index. */
export async function registerPasskey(deps: EntitiesDeps, tenant: Tenant, passkey: RegisteredPasskey): Promise<Value> {
  const { personId } = signedIn(tenant);
  const { id, ...key } = passkey;
  const outcome = await addValues(deps, tenant, personId, [{ type: '_passkey', string: id }], {
    verified: { property: '_passkey', subject: id },
    passkey: key,
  });
  return outcome.properties.find((value) => value.type === '_passkey' && value.string === id)!;
}

const REFUSED = 'Unknown or revoked passkey.';

/**
 * A passkey sign-in into `db`: `verify` checks the assertion against the passkey's public key and
 * counter (the API's WebAuthn library) and returns the counter it signed; the stored counter is
 * then moved on, and a sign-in that finds it moved by another (the same counter signed twice: a
 * replay or a cloned authenticator) is refused.
 */
export async function signInWithPasskey(deps: EntitiesDeps, db: string, credentialId: string, verify: (key: PasskeyKey) => Promise<number>): Promise<SignIn> {
  const recordId = credentialRecordId(db, { property: '_passkey', subject: credentialId });
  const live = await liveKey(deps.store, recordId);
  if (!live || live.key.kind !== 'passkey' || live.key.db !== db || !live.key.passkey) throw unauthenticated(REFUSED);
  const stored = live.key.passkey;
  const counter = await verify(stored);
  // Authenticators that keep no counter sign 0 every time; only a counter in use can be moved on.
  if (counter > 0 && !(await deps.store.registry.advanceCounter(recordId, stored.counter, counter))) {
    throw unauthenticated('This passkey signed a counter already used: sign in again.');
  }
  return signInOf(live);
}

/** The database a passkey belongs to (its record names it): where a sign-in that names none goes. */
export async function databaseOfPasskey(deps: EntitiesDeps, credentialId: string): Promise<string | undefined> {
  // A passkey's record id is made from the credential id alone: one passkey, one person anywhere.
  const record = await deps.store.registry.keyRecord(credentialRecordId('', { property: '_passkey', subject: credentialId }));
  return record?.kind === 'passkey' && !record.revokedAt ? record.db : undefined;
}
