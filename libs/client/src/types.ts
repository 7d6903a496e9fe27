/**
 * Wire shapes of the Entia API (interface §2, SPEC §3 and §7). Only what the client reads or sends;
 * the server may add fields, which pass through untouched.
 */

/** A value as written: `type` names the property, exactly one value field carries the data. */
export interface ValueInput {
  type: string;
  /** Present: overwrite that value. Absent: add a value (or replace it on a `list: false` property). */
  _id?: string;
  string?: string;
  number?: number;
  boolean?: boolean;
  /** YYYY-MM-DD */
  date?: string;
  /** ISO 8601 with offset; returned normalised to UTC. */
  datetime?: string;
  /** An entity `_id` in the same database. */
  reference?: string;
  filename?: string;
  /** Bytes. */
  filesize?: number;
  /** MIME type. */
  filetype?: string;
  language?: string;
}

/** Where to PUT a file's bytes right after creating its value; every header is required as given. */
export interface UploadTarget {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
}

/** A stored value, as returned. */
export interface Value extends ValueInput {
  _id: string;
  created: { at: string; by: string };
  /** File values, in the response that created them. */
  upload?: UploadTarget;
  /** File values fetched by id: a signed download URL, valid for a short time. Fetch a new one each time. */
  url?: string;
}

/** An entity: its `_id`, and one array of values per property name. See `valuesOf`. */
export interface Entity {
  _id: string;
  [property: string]: Value[] | string;
}

/** Answer to creating an entity or adding values: the values created or overwritten, by property name. */
export interface WriteResult {
  _id: string;
  properties: Record<string, Value[]>;
}

export interface EntityList {
  entities: Entity[];
  /** All matches, not just this page. */
  count: number;
  limit: number;
  skip: number;
}

export interface Deleted {
  deleted: true;
}

/** A whole-database rebuild (`POST /api/{db}/aggregate`) as `GET /api/{db}/aggregate/{id}` shows it. */
export interface Aggregation {
  id: string;
  /** waiting, active, delayed, completed or failed. */
  state: string;
  progress: { done: number; total: number };
  /** Once completed: how many entities were recomputed. */
  result?: { entities: number };
  failedReason?: string;
}

/**
 * Query of `GET /api/{db}/entity`: filters such as `'name.string.regex': '/^a/i'` and the parameters
 * `sort`, `limit`, `skip`, `q`, `props`. Arrays become comma lists (`in`, `sort`, `props`); `undefined`
 * leaves a key out, so optional parameters need no branching at the call site.
 */
export type EntityQuery = Record<string, string | number | boolean | string[] | undefined>;

/** A database the API key opens, and the person it acts as there. */
export interface Account {
  _id: string;
  name: string;
  user: { _id: string; name: string };
}

export interface AuthResult {
  accounts: Account[];
  /** A JWT, valid 48 hours. */
  token: string;
}

/** The values of one property of an entity; `[]` when it has none (or `props` left it out). */
export function valuesOf(entity: Entity, property: string): Value[] {
  const values = entity[property];
  return Array.isArray(values) ? values : [];
}
