import { setTimeout as sleep } from 'node:timers/promises';
import {
  CredentialTaken,
  identityValue,
  personsWithEmail,
  selfRegisteredPerson,
  signInSettings,
  unauthenticated,
  type Identity,
  type ProviderProfile,
} from '@entia/domain';
import { newId } from '@entia/store';
import type { EntitiesDeps } from './deps';
import { credentialRecordId } from './keys';
import { schemaOf } from './definitions';
import { liveRecord, signInOf, type SignIn } from './sign-in';
import type { Tenant } from './tenant';
import { addValues, createEntity } from './write/values';

const REFUSED = 'This identity is not a person of this database.';

/**
 * An OpenID Connect sign-in, once the provider's answer is verified: the person whose
 * `_identity` it is; else, when the database's owners allow it, the one person with the verified
 * e-mail (the identity is linked to them) or a new person (self-registration). Anything else is
 * refused, revoked and unknown identities alike. `tenant` is the database, with no caller.
 */
export async function signInWithIdentity(deps: EntitiesDeps, tenant: Tenant, identity: Identity, profile: ProviderProfile): Promise<SignIn> {
  const subject = identityValue(identity);
  const recordId = credentialRecordId(tenant.name, { property: '_identity', subject });
  const known = await signInIfLive(deps, tenant, recordId);
  if (known !== 'unknown') return known;

  const database = await tenant.entities.get(tenant.record.databaseEntity);
  const settings = signInSettings(database?.entity.properties);
  const verified = { property: '_identity' as const, subject };
  try {
    const email = profile.emailVerified ? profile.email : undefined;
    const matched = settings.emailMatch && email ? await personWithEmail(tenant, email) : undefined;
    if (matched) {
      await linkVerifiedIdentity(deps, tenant, matched, subject);
    } else if (settings.selfRegistration) {
      const schema = await schemaOf(deps, tenant);
      const personType = tenant.record.meta.person;
      const values = selfRegisteredPerson({
        personType,
        identity: subject,
        profile,
        definesEmail: schema.typeOf(personType).definitions.has('email'),
        databaseOwners: (database?.entity.properties._owner ?? []).flatMap((owner) => (owner.reference ? [owner.reference] : [])),
      });
      await createEntity(deps, { ...tenant, caller: { personId: newId() } }, values, { registering: true, verified });
    } else {
      throw unauthenticated(REFUSED);
    }
  } catch (error) {
    // Another sign-in of the same identity recorded it first: theirs stands, and this one uses it.
    if (!(error instanceof CredentialTaken)) throw error;
  }
  const recorded = await signInIfLive(deps, tenant, recordId);
  if (recorded === 'unknown') throw unauthenticated(REFUSED);
  return recorded;
}

/**
 * Records a provider identity the server verified on `person`, written as the person themselves
 * (a sign-in matched by e-mail, an accepted invitation). Another sign-in that recorded it first is
 * no failure here: the caller reads what stands (`signInIfLive`) and judges it.
 */
export async function linkVerifiedIdentity(deps: EntitiesDeps, tenant: Tenant, person: string, subject: string): Promise<void> {
  try {
    await addValues(deps, { ...tenant, caller: { personId: person } }, person, [{ type: '_identity', string: subject }], { verified: { property: '_identity', subject } });
  } catch (error) {
    if (!(error instanceof CredentialTaken)) throw error;
  }
}

/**
 * A credential's record is written just before the person it opens (so that the write never
 * stands without its index) and withdrawn if that write fails: a record this young whose person
 * is not there yet belongs to a write still under way, and is waited for.
 */
const IN_FLIGHT_MS = 10_000;
const SETTLE_WAIT_MS = 5_000;

/** The sign-in an identity's record gives; refused when the record stands but no longer opens the database. */
export async function signInIfLive(deps: EntitiesDeps, tenant: Tenant, recordId: string): Promise<SignIn | 'unknown'> {
  const deadline = Date.now() + SETTLE_WAIT_MS;
  for (;;) {
    const record = await deps.store.registry.keyRecord(recordId);
    if (!record) return 'unknown';
    const live = record.db === tenant.name && record.kind === 'identity' ? await liveRecord(deps.store, record) : undefined;
    if (live) return signInOf(live);
    // Revoked, or its person (or a sponsor) gone: refused, not matched or registered anew.
    if (record.revokedAt || Date.now() - record.createdAt.getTime() > IN_FLIGHT_MS || Date.now() > deadline) throw unauthenticated(REFUSED);
    await sleep(50);
  }
}

/** The one person with this e-mail; undefined when none or several have it (who is meant cannot be told). */
async function personWithEmail(tenant: Tenant, email: string): Promise<string | undefined> {
  const found = await tenant.entities.matching({ filters: personsWithEmail(tenant.record.meta.person, email), terms: [] }, 2);
  return found.length === 1 ? found[0]!._id : undefined;
}

/**
 * The databases where this identity is a person's, for a sign-in that names none (Entu's client
 * after a provider sign-in): every database's record id for it, looked up in one query.
 * Revoked links do not count. Cost grows with the number of databases (one id each, one read).
 */
export async function databasesOfIdentity(deps: EntitiesDeps, identity: Identity): Promise<string[]> {
  const subject = identityValue(identity);
  const databases = (await deps.store.registry.allDatabases()).filter((database) => !database.deleting);
  const ids = databases.map((database) => credentialRecordId(database._id, { property: '_identity', subject }));
  const records = await deps.store.registry.keyRecords(ids);
  return records.filter((record) => record.kind === 'identity' && !record.revokedAt).map((record) => record.db).sort();
}
