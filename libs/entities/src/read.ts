import { isObjectId, mayAddress, notFound, type Caller } from '@entia/domain';
import type { Stored, Versioned } from '@entia/store';
import type { Tenant } from './tenant';

/** Whether the entity was found and the caller may address it (`mayAddress`). */
export function visible<T extends Versioned>(found: T | undefined, caller: Caller, writing: boolean): found is T {
  return found !== undefined && mayAddress(found.entity, caller, writing);
}

/** Reads an entity the caller may read, or 404. */
export async function readable(tenant: Tenant, id: string, writing = false): Promise<Stored> {
  const found = await tenant.entities.get(id);
  if (!visible(found, tenant.caller, writing)) throw notFound(`No entity ${id}.`);
  return found;
}

/** The entity holding a value the caller may read, or 404. */
export async function readableByValue(tenant: Tenant, valueId: string, writing = false): Promise<Versioned> {
  const found = await tenant.entities.byValueId(valueId);
  if (!visible(found, tenant.caller, writing)) throw notFound(`No property ${valueId}.`);
  return found;
}

/** A malformed id cannot name an existing entity or value: 404, like any unknown id. */
export function existingId(id: string, what: 'entity' | 'property'): string {
  if (!isObjectId(id)) throw notFound(`No ${what} ${id}.`);
  return id;
}

/** The stored entity as the caller may address it for a write, or 404 (existence is not revealed). */
export function addressable(tenant: Tenant, stored: Stored | undefined, id: string, writing: boolean): Versioned {
  if (!visible(stored !== undefined && !stored.deleted ? stored : undefined, tenant.caller, writing)) throw notFound(`No entity ${id}.`);
  return stored!;
}
