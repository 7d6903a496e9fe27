/** Names and identifiers of SPEC §2, checked before anything reaches storage. */

const DATABASE_NAME = /^[a-z][a-z0-9_]{2,62}$/;
// MongoDB's own databases, and path segments the API uses beside /api/{db} (/api/auth, /api/jobs).
const RESERVED = ['admin', 'local', 'config', 'auth', 'jobs'];
const RESERVED_DATABASES = new Set(RESERVED);
const OBJECT_ID = /^[0-9a-f]{24}$/;

/**
 * The same rules as patterns for a schema (the API's path parameters): a database name minus the
 * reserved ones (the service's own control database is configuration, so it is not in here).
 */
export const DATABASE_NAME_PATTERN = `^(?!(${RESERVED.join('|')})$)${DATABASE_NAME.source.slice(1)}`;
export const OBJECT_ID_PATTERN = OBJECT_ID.source;
const PROPERTY_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** A tenant database name: the pattern, minus reserved names and the service's control database. */
export function isDatabaseName(name: string, controlDb: string): boolean {
  return DATABASE_NAME.test(name) && !RESERVED_DATABASES.has(name) && name !== controlDb;
}

/** Entity and value ids are 24 lowercase hex characters (a MongoDB ObjectId as a string). */
export function isObjectId(id: string): boolean {
  return OBJECT_ID.test(id);
}

/** A user property name; names starting with `_` belong to the system. */
export function isPropertyName(name: string): boolean {
  return PROPERTY_NAME.test(name);
}
