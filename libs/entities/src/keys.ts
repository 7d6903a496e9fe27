import { createHash } from 'node:crypto';
import { hasRight, keySponsors, unauthenticated, type KeyGenerator, type NewCredential, type WriteResult } from '@entia/domain';
import type { KeyRecord, PasskeyKey } from '@entia/store';
import type { EntitiesDeps } from './deps';
import { signedIn, type Tenant } from './tenant';

/** The caller as the generator of a key: whether they administer the database, and whom their own access depends on. */
async function generatorOf(deps: EntitiesDeps, tenant: Tenant): Promise<KeyGenerator> {
  const caller = signedIn(tenant);
  // Without a token (a tool writing as the person, e.g. the benchmark's seeding, or a sign-in the
  // database's settings let record an identity) there is no key whose sponsors to pass on.
  const [database, own] = await Promise.all([
    tenant.entities.get(tenant.record.databaseEntity),
    tenant.kid === undefined ? { sponsors: [] } : deps.store.registry.key(tenant.kid),
  ]);
  // Revoked since the token's last check: a key must not be minted on the strength of it.
  if (!own) throw unauthenticated('The API key this token came from was revoked.');
  return { id: caller.personId, ownsDatabase: database !== undefined && hasRight(database.entity.properties, caller, 'owner'), sponsors: own.sponsors ?? [] };
}

/** The kind of each credential property's record (API keys' records carry none). */
const KIND_OF = { _api_key: undefined, _identity: 'identity', _passkey: 'passkey' } as const;

const sha256 = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000'), 'utf8').digest('hex');

/**
 * The id of a credential's index record: an API key's hash; an identity's hash with its database
 * (the same person at a provider may be a person of several databases); a passkey's hash alone (a
 * credential id is the authenticator's, unique wherever it is registered).
 */
export function credentialRecordId(db: string, credential: Pick<NewCredential, 'property' | 'subject'>): string {
  switch (credential.property) {
    case '_api_key':
      return credential.subject;
    case '_identity':
      return sha256('identity', db, credential.subject);
    case '_passkey':
      return sha256('passkey', credential.subject);
  }
}

/**
 * The index records of the credentials a write creates for `person`, each with the persons it
 * depends on (`keySponsors`); `passkey` is the public part of the one a registration verified.
 * Reads nothing when the write creates none.
 */
export async function keyRecords(deps: EntitiesDeps, tenant: Tenant, person: string, result: WriteResult, passkey?: PasskeyKey): Promise<KeyRecord[]> {
  if (result.credentials.length === 0) return [];
  const sponsors = keySponsors(person, await generatorOf(deps, tenant));
  return result.credentials.map((credential) => ({
    _id: credentialRecordId(tenant.name, credential),
    ...(KIND_OF[credential.property] ? { kind: KIND_OF[credential.property] } : {}),
    db: tenant.name,
    person,
    value: credential.valueId,
    createdAt: new Date(),
    sponsors,
    ...(credential.property === '_passkey' && passkey ? { passkey } : {}),
  }));
}
