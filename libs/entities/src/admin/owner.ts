import { isObjectId } from '@entia/domain';
import type { DatabaseRecord, Store } from '@entia/store';
import type { Tenant } from '../tenant';
import { AdminError } from './errors';

/**
 * The database's first owner: of the `_owner` values of its `database` entity, the one created
 * first. create-database makes its first person that owner, so this is that person unless they
 * were removed as an owner (then the earliest owner left).
 */
export async function firstOwner(store: Store, db: string, record: DatabaseRecord): Promise<string> {
  const found = await store.entities(db).get(record.databaseEntity);
  const owners = [...(found?.entity.properties._owner ?? [])].sort((a, b) => (a.created.at < b.created.at ? -1 : a.created.at > b.created.at ? 1 : 0));
  const owner = owners.find((value) => value.reference !== undefined)?.reference;
  if (!owner) throw new AdminError(`database "${db}" has no owner on its database entity`);
  return owner;
}

/** A person of this database named by an operator; a clear refusal for anything else (another database's id included). */
export async function personOf(store: Store, db: string, record: DatabaseRecord, id: string): Promise<string> {
  if (!isObjectId(id)) throw new AdminError(`${JSON.stringify(id)} is not a person id (24 hexadecimal characters)`);
  const found = await store.entities(db).get(id);
  const type = found?.entity.properties._type?.[0]?.reference;
  if (!found || type !== record.meta.person) throw new AdminError(`no person ${id} in database "${db}"`);
  return id;
}

/** The database as its first owner sees it: admin commands act with the owner's rights, through the use cases. */
export async function asOwner(store: Store, db: string, record: DatabaseRecord): Promise<Tenant> {
  return { name: db, record, entities: store.entities(db), caller: { personId: await firstOwner(store, db, record) } };
}
