import { conflict } from '@entia/domain';
import { WriteBusy } from '@entia/store';
import type { EntitiesDeps } from '../deps';
import type { Tenant } from '../tenant';

/**
 * Writes of one database's types and property definitions take turns under this lease (besides
 * the entity's own), because each is checked against the others of its kind (`checkPlacement`: a
 * definition's name unique in its type, at most MAX_FORMULAS_PER_TYPE formulas; `typeNameTaken`: a
 * type's name unique in the database): two written at once would each pass without seeing the
 * other. The schema is written rarely, so one lease per database costs nothing.
 * Always taken before an entity's lease, never after, so no two writers wait for each other.
 */
export function underSchemaLease<T>(deps: EntitiesDeps, tenant: Tenant, work: () => Promise<T>): Promise<T> {
  return deps.leases.hold(`${tenant.name}/definitions`, work);
}

/** Thrown from a plan that finds it is changing a definition without the schema lease: retry under it. */
export class NeedsSchemaLease extends Error {}

/**
 * A use case that changes an entity, with a wait for its turn that ran out (`WriteBusy`: nothing
 * was written) answered as the domain's `conflict`, saying when to try again.
 */
export async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WriteBusy) throw conflict('The entity is being changed by other writers; nothing was written. Try again.', error.retryAfterSeconds);
    throw error;
  }
}
