import type { EntitiesDeps } from '../deps';
import { addValues } from '../write/values';
import { deleteValue } from '../write/deletes';
import { servedDatabase } from './database';
import { AdminError } from './errors';
import { asOwner, personOf } from './owner';

export interface ResetKey {
  db: string;
  person: string;
  /** How many API keys were revoked. */
  revoked: number;
  /** The new key, shown once (only its hash is kept). */
  apiKey: string;
}

/**
 * Revokes every API key of a person (default: the database's first owner, `firstOwner`) and gives
 * them a new one, through the one write path as the first owner: deleting an `_api_key` value
 * removes its credential record, so its tokens stop within KEY_RECHECK_MS (`KeyLiveness`), and
 * the change is in the person's history like any other.
 */
export async function resetApiKey(deps: EntitiesDeps, db: string, personId?: string): Promise<ResetKey> {
  const record = await servedDatabase(deps.store, db);
  const tenant = await asOwner(deps.store, db, record);
  const person = personId === undefined ? tenant.caller.personId! : await personOf(deps.store, db, record, personId);
  const found = await tenant.entities.get(person);
  if (!found) throw new AdminError(`no person ${person} in database "${db}"`);
  const keys = found.entity.properties._api_key ?? [];
  for (const key of keys) await deleteValue(deps, tenant, key._id);
  const written = await addValues(deps, tenant, person, [{ type: '_api_key' }]);
  const apiKey = written.properties.find((value) => value.type === '_api_key')?.string;
  if (apiKey === undefined) throw new AdminError('the new key was not returned by the write; run reset-key again');
  return { db, person, revoked: keys.length, apiKey };
}
