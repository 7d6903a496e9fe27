import { hasRight, keySponsors, unauthenticated, type KeyGenerator, type WriteResult } from '@entia/domain';
import type { KeyRecord } from '@entia/store';
import type { EntitiesDeps } from './deps';
import { signedIn, type Tenant } from './tenant';

/** The caller as the generator of a key: whether they administer the database, and whom their own access depends on. */
async function generatorOf(deps: EntitiesDeps, tenant: Tenant): Promise<KeyGenerator> {
  const caller = signedIn(tenant);
  // Without a token (a tool writing as the person, e.g. the benchmark's seeding) there is no key
  // whose sponsors to pass on.
  const [database, own] = await Promise.all([
    tenant.entities.get(tenant.record.databaseEntity),
    tenant.kid === undefined ? { sponsors: [] } : deps.store.registry.key(tenant.kid),
  ]);
  // Revoked since the token's last check: a key must not be minted on the strength of it.
  if (!own) throw unauthenticated('The API key this token came from was revoked.');
  return { id: caller.personId, ownsDatabase: database !== undefined && hasRight(database.entity.properties, caller, 'owner'), sponsors: own.sponsors ?? [] };
}

/**
 * The index records of the keys a write generates for `person`, each with the persons it depends
 * on (`keySponsors`). Reads nothing when the write generates no key.
 */
export async function keyRecords(deps: EntitiesDeps, tenant: Tenant, person: string, result: WriteResult): Promise<KeyRecord[]> {
  if (result.newKeys.length === 0) return [];
  const sponsors = keySponsors(person, await generatorOf(deps, tenant));
  return result.newKeys.map((key) => ({ _id: key.hash, db: tenant.name, person, value: key.valueId, createdAt: new Date(), sponsors }));
}
