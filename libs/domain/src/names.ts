/**
 * Names and identifiers of SPEC §2: the one home of each lexical rule. Every rule is here as its
 * spelling (a regular-expression source), as an anchored pattern for schemas, and as a predicate.
 */

const OBJECT_ID = '[0-9a-f]{24}';
const DATABASE_NAME = '[a-z][a-z0-9_]{2,62}';
const USER_PROPERTY_NAME = '[A-Za-z][A-Za-z0-9_]{0,63}';
/** A user property name, or a system one (`_type`, `_created`…): where a name is read, not defined. */
const ANY_PROPERTY_NAME = `_?${USER_PROPERTY_NAME}`;

// MongoDB's own databases, and path segments the API uses beside /api/{db} (/api/auth, /api/jobs).
const RESERVED = ['admin', 'local', 'config', 'auth', 'jobs'];
const RESERVED_DATABASES = new Set(RESERVED);

const anchored = (spelling: string) => `^${spelling}$`;

/** Entity and value ids: 24 lowercase hex characters (a MongoDB ObjectId as a string). */
export const OBJECT_ID_PATTERN = anchored(OBJECT_ID);
/**
 * A database name as spelled, reserved names included: for a name that is configuration (the
 * control database) or that is checked against the reserved ones elsewhere.
 */
export const DATABASE_SPELLING_PATTERN = anchored(DATABASE_NAME);
/** A database name as spelled, unanchored: for ids that embed one (`rebuild-<db>-…`). */
export const DATABASE_NAME_SOURCE = DATABASE_NAME;
/**
 * A tenant database name: the spelling minus the reserved names (the service's own control
 * database is configuration, so it is not in here: `isDatabaseName` also refuses it).
 */
export const DATABASE_NAME_PATTERN = `^(?!(${RESERVED.join('|')})$)${DATABASE_NAME}$`;
/** A user property name; names starting with `_` belong to the system. */
export const PROPERTY_NAME_PATTERN = anchored(USER_PROPERTY_NAME);
/** A user or system property name, unanchored: for grammars that embed a name (filter keys). */
export const ANY_PROPERTY_NAME_SOURCE = ANY_PROPERTY_NAME;
/** A user or system property name. */
export const ANY_PROPERTY_NAME_PATTERN = anchored(ANY_PROPERTY_NAME);

/** A property name, or a path to one field of its values (`ordinal.number`): an entry of `props`. */
const PROPERTY_SELECTION = `${ANY_PROPERTY_NAME}(\\.[a-z]{1,16})?`;

/**
 * A comma-separated list of 1 to `max` property names or paths (`props=a,b.number,_created`); which
 * fields a path may name is the value types' (`parseProps`).
 */
export function propertyListPattern(max: number): string {
  return `^${PROPERTY_SELECTION}(,${PROPERTY_SELECTION}){0,${max - 1}}$`;
}

const OBJECT_ID_RULE = new RegExp(OBJECT_ID_PATTERN);
const DATABASE_SPELLING_RULE = new RegExp(DATABASE_SPELLING_PATTERN);
const PROPERTY_NAME_RULE = new RegExp(PROPERTY_NAME_PATTERN);
const ANY_PROPERTY_NAME_RULE = new RegExp(ANY_PROPERTY_NAME_PATTERN);

/** A tenant database name: the spelling, minus reserved names and the service's control database. */
export function isDatabaseName(name: string, controlDb: string): boolean {
  return isDatabaseSpelling(name) && !RESERVED_DATABASES.has(name) && name !== controlDb;
}

/** Spelled like a database name, whether or not the name is reserved. */
export function isDatabaseSpelling(name: string): boolean {
  return DATABASE_SPELLING_RULE.test(name);
}

export function isObjectId(id: string): boolean {
  return OBJECT_ID_RULE.test(id);
}

export function isPropertyName(name: string): boolean {
  return PROPERTY_NAME_RULE.test(name);
}

export function isAnyPropertyName(name: string): boolean {
  return ANY_PROPERTY_NAME_RULE.test(name);
}
