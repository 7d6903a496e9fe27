import { canRead, isObjectId, type Caller } from '@entia/domain';
import type { Versioned } from '@entia/store';
import { problems } from '../http/problem';
import type { Tenant } from '../tenancy';

/**
 * Whether the caller may address the entity at all (else 404: existence is not revealed). Its
 * own person entity always: a person manages their API keys even without a right on it (SPEC §6);
 * the rules then allow nothing else there.
 */
export function visible<T extends Versioned>(found: T | undefined, caller: Caller, writing: boolean): found is T {
  return found !== undefined && (canRead(found.entity.properties, caller) || (writing && found.entity._id === caller.personId));
}

/** Reads an entity the caller may read, or 404. */
export async function readable(tenant: Tenant, id: string, writing = false): Promise<Versioned> {
  const found = await tenant.entities.get(id);
  if (!visible(found, tenant.caller, writing)) throw problems.notFound(`No entity ${id}.`);
  return found;
}

/** The entity holding a value the caller may read, or 404. */
export async function readableByValue(tenant: Tenant, valueId: string, writing = false): Promise<Versioned> {
  const found = await tenant.entities.byValueId(valueId);
  if (!visible(found, tenant.caller, writing)) throw problems.notFound(`No property ${valueId}.`);
  return found;
}

/** A malformed id cannot name an existing entity or value: 404, like any unknown id. */
export function existingId(id: string, what: 'entity' | 'property'): string {
  if (!isObjectId(id)) throw problems.notFound(`No ${what} ${id}.`);
  return id;
}
