import { first, referencesOf, type Entity, type Properties } from './entity';
import { forbidden } from './errors';

/** Cumulative rights (SPEC §6): each includes the ones after it. */
export const RIGHTS = ['owner', 'editor', 'expander', 'viewer'] as const;
export type Right = (typeof RIGHTS)[number];

const LEVEL: Record<Right, number> = { viewer: 1, expander: 2, editor: 3, owner: 4 };

export const RIGHT_PROPERTIES = ['_owner', '_editor', '_expander', '_viewer'] as const;

/**
 * Entu's denial: the persons it names hold no right on the entity, whether the right is
 * its own or inherited, and pass it on to no child. It does not override `_sharing` (a `domain` or
 * `public` entity stays readable to them as to everyone).
 */
export const DENIAL_PROPERTY = '_noaccess';

/** The person lists of an entity: its rights and its denial (each must name persons of the database). */
export const PERSON_LIST_PROPERTIES = [...RIGHT_PROPERTIES, DENIAL_PROPERTY] as const;

export function isPersonList(name: string): boolean {
  return (PERSON_LIST_PROPERTIES as readonly string[]).includes(name);
}

/** The persons who hold `right` on the entity: its values, less the denied. */
export function holdersOf(properties: Properties, right: (typeof RIGHT_PROPERTIES)[number]): string[] {
  const denied = referencesOf(properties, DENIAL_PROPERTY);
  const holders = referencesOf(properties, right);
  return denied.length === 0 ? holders : holders.filter((person) => !denied.includes(person));
}

export const SHARING = ['private', 'domain', 'public'] as const;
export type Sharing = (typeof SHARING)[number];

/** A signed-in person of the database, or nobody (an anonymous GET). */
export interface Caller {
  personId?: string;
}

export function sharingOf(properties: Properties): Sharing {
  const value = first(properties, '_sharing')?.string;
  return (SHARING as readonly string[]).includes(value ?? '') ? (value as Sharing) : 'private';
}

/** The highest right `personId` holds on the entity through its right lists, if any. */
export function rightOf(properties: Properties, personId: string | undefined): Right | undefined {
  if (personId === undefined || referencesOf(properties, DENIAL_PROPERTY).includes(personId)) return undefined;
  return RIGHTS.find((right) => referencesOf(properties, `_${right}`).includes(personId));
}

export function hasRight(properties: Properties, caller: Caller, needed: Right): boolean {
  const right = rightOf(properties, caller.personId);
  return right !== undefined && LEVEL[right] >= LEVEL[needed];
}

export function canRead(properties: Properties, caller: Caller): boolean {
  const sharing = sharingOf(properties);
  if (sharing === 'public') return true;
  if (caller.personId === undefined) return false;
  return sharing === 'domain' || rightOf(properties, caller.personId) !== undefined;
}

/**
 * Whether values of `source` may be copied into `holder` — as a reference label or a formula term:
 * some `_owner` of the holder (inherited owners included) may read the source, or
 * anyone may (public). The owners decide who else reads the holder, so what it shows of others is
 * what they could copy by hand; a holder left without owners copies only public values.
 */
export function ownersCanRead(holder: Properties, source: Properties): boolean {
  return canRead(source, {}) || holdersOf(holder, '_owner').some((personId) => canRead(source, { personId }));
}

/** The properties whose values decide who may read an entity (`canRead`, `readAccess`). */
export const READ_ACCESS_PROPERTIES = [...PERSON_LIST_PROPERTIES, '_sharing'] as const;

/**
 * The access list stored on the entity document, which every read is filtered by: the persons
 * holding any right, plus `domain` or `public` by `_sharing`. It must always say what `canRead` says.
 */
export function readAccess(properties: Properties): string[] {
  const persons = RIGHT_PROPERTIES.flatMap((name) => holdersOf(properties, name));
  const sharing = sharingOf(properties);
  return [...new Set([...persons, ...(sharing === 'private' ? [] : [sharing])])];
}

/** The access tags a caller matches: what a read filter compares `readAccess` with. */
export function callerTags(caller: Caller): string[] {
  return caller.personId === undefined ? ['public'] : [caller.personId, 'domain', 'public'];
}

/**
 * Whether the caller may address the entity at all; otherwise it does not exist for them (404:
 * existence is not revealed). Their own person entity always when writing: a person manages their
 * API keys even without a right on it (SPEC §6); the write rules then allow nothing else there.
 */
export function mayAddress(entity: Entity, caller: Caller, writing: boolean): boolean {
  return canRead(entity.properties, caller) || (writing && entity._id === caller.personId);
}

/** SPEC §6: only an owner deletes an entity. */
export function assertMayDelete(properties: Properties, caller: Caller): void {
  if (!hasRight(properties, caller, 'owner')) throw forbidden('Deleting an entity needs the owner right.');
}

/** Whole-database operations (a rebuild and its status) are the database's owners' business (SPEC §7). */
export function assertDatabaseOwner(database: Properties, caller: Caller): void {
  if (!hasRight(database, caller, 'owner')) throw forbidden('Rebuilding a database needs the owner right on its database entity.');
}
