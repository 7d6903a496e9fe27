/**
 * Wire shapes of the Entia API (interface §2, SPEC §3 and §7), written out so that the published
 * package stands alone (no server code, no schema library in its types). They are checked against
 * the very schemas the API validates with and publishes (test/wire-types.test.ts), so client and
 * server cannot drift. The server may add fields, which pass through untouched.
 */

/** The data of a value: one value field (a file's three) and, on multilingual properties, `language`. */
export interface ValueData {
  /** string and text properties. */
  string?: string;
  number?: number;
  boolean?: boolean;
  /** `YYYY-MM-DD`. */
  date?: string;
  /** ISO 8601 with an offset; stored and returned in UTC. */
  datetime?: string;
  /** An entity id. */
  reference?: string;
  /** File properties: all three. */
  filename?: string;
  filesize?: number;
  filetype?: string;
  /** Required on multilingual properties, refused on others. */
  language?: string;
}

/**
 * A value as written: `type` names the property, exactly one value field carries the data. A date
 * or datetime may also be epoch milliseconds, as Entu's web client sends them; it is stored and
 * returned as text all the same.
 */
export interface ValueInput extends Omit<ValueData, 'date' | 'datetime'> {
  type: string;
  /** Overwrite this value instead of adding one. */
  _id?: string;
  /** `YYYY-MM-DD`, or the epoch ms of its local midnight (a whole second). */
  date?: string | number;
  /** ISO 8601 with an offset, or epoch ms (an integer); stored and returned in UTC. */
  datetime?: string | number;
  /** On a counter property, instead of a value: the step to its next number (1); the server numbers the value. */
  counter?: number;
}

/** Where to PUT a file's bytes right after creating its value; every header is required as given. */
export interface UploadTarget {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
}

/** A value as stored and returned. */
export interface StoredValue extends ValueData {
  _id: string;
  type: string;
  /** On a right value: copied from a `_parent` by `_inheritrights`; not writable. */
  inherited?: true;
  /** On a `_reference` value: the property the reference is in. On a right a higher one implies (an owner listed under `_editor`): the property the value is stored in. */
  property_type?: string;
  /** On a `_reference` value: the name of the referenced entity's type. */
  entity_type?: string;
  created: { at: string; by: string };
}

/** A stored value, as returned; file values carry `upload` when just created, `url` when fetched by id. */
export interface Value extends StoredValue {
  upload?: UploadTarget;
  /** File values read by id: a signed download URL, valid 60 s. */
  url?: string;
}

/** An entity: its `_id`, and one array of values per property name. See `valuesOf`. */
export interface Entity {
  _id: string;
  [property: string]: Value[] | string;
}

/** Answer to creating an entity (and each copy a duplicate makes): the values it was created with, by property name. */
export interface WriteResult {
  _id: string;
  properties: Record<string, Value[]>;
}

/**
 * Answer to adding values (`addValues`), in the shape of Entu's API: the values created or
 * overwritten as one array, in the order they were sent (then any formula value of the entity that
 * changed), each naming its property in `type` — `properties.find((v) => v.type === 'photo')`. A
 * new file value carries `upload`; a generated API key its plaintext `string`, in this answer only.
 */
export interface AddedValues {
  _id: string;
  properties: Value[];
}

/**
 * One page of a list; `count` is all matches, not just this page (absent when the query asked
 * `count: 'none'`); `next`, present when more matches follow, is the cursor to pass as `after`.
 */
export interface EntityList {
  entities: Entity[];
  count?: number;
  limit: number;
  skip: number;
  next?: string;
  /** What to know of this answer: `q` on types with no searchable property (it then matches nothing); a sort no index serves. */
  warnings?: string[];
}

export interface Deleted {
  deleted: true;
}

/** One change of an entity: `type` the property (or `_created`/`_deleted`), `old` and `new` its value before and after; `by` null and `worker` true for the worker's. */
export interface Change {
  type: string;
  at: string;
  by: string | null;
  worker?: true;
  old?: StoredValue;
  new?: StoredValue;
}

/** One page of an entity's history, newest first; `count` is every change. */
export interface History {
  changes: Change[];
  count: number;
}

/** A square WebP thumbnail of an image file value, with a download `url` valid 60 s. */
export interface Thumbnail {
  _id: string;
  type: string;
  filename: string;
  filesize: number;
  filetype: 'image/webp';
  size: number;
  url: string;
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
 * Query of `GET /api/{db}/entity` in the wire syntax: filters such as `'name.string.regex': '/^a/i'`
 * and the parameters `sort`, `limit`, `skip`, `q`, `props`, `count`, `after`. Arrays become comma
 * lists (`in`, `sort`, `props`); `undefined` leaves a key out, so optional parameters need no
 * branching at the call site. (The name-based `where` of `db.type(…).list()` is written in terms of this.)
 */
export type EntityQuery = Record<string, string | number | boolean | string[] | undefined> & {
  /** Start after the page whose `next` this is (same filters, sort and `q`); not with `skip`. */
  after?: string | undefined;
  /** `exact` (the default) counts every match; `none` leaves `count` out and saves the server a second scan. */
  count?: 'exact' | 'none' | undefined;
};

/** A database the API key opens, and the person it acts as there. */
export interface Account {
  /** The database's name. */
  _id: string;
  name: string;
  /** The person entity the key acts as there. */
  user: { _id: string; name: string };
}

/** The databases the API key opens, the signed-in person's name, and a JWT valid 48 hours. */
export interface AuthResult {
  accounts: Account[];
  user: { name: string };
  token: string;
  /** When `token` expires (ISO 8601). */
  expires: string;
}

/** One change as the change feed delivers it (`subscribe`); `inView: false` says the entity left the subscriber's view. */
export interface ChangeEvent {
  /** Resume after it with `lastEventId`. */
  id: string;
  db: string;
  entity: string;
  /** The entity's `_type` (an id). */
  type: string;
  kind: 'created' | 'updated' | 'deleted';
  /** The entity's version after the change; increasing per entity, not always consecutive. */
  version: number;
  at: string;
  by: string | null;
  worker?: true;
  inView: boolean;
  /** Names of the properties whose values changed (empty when `inView` is false). */
  properties: string[];
  /** With `props`: those properties' values after the change. */
  values?: Entity;
}

/**
 * The data types a property definition can have (SPEC §3), as the server registers them; held equal
 * to the server's list by wire-types.typecheck.ts. The typed layer's static types know each one;
 * at run time it works from what the schema says of a property (`fields`, `input`), so a type
 * added on the server is sent and read before this list names it.
 */
export type ValueType = 'string' | 'text' | 'number' | 'boolean' | 'date' | 'datetime' | 'reference' | 'file' | 'counter' | 'url';

/** What a value field reads as: `id` is an entity id; `date` `YYYY-MM-DD`; `datetime` ISO 8601 text (a `Date` when written). */
export type ScalarKind = 'string' | 'number' | 'boolean' | 'id' | 'date' | 'datetime';

/** How a value is added: its field(s) as given, a file's upload, or a counter's `{counter: 1}`. */
export type InputKind = 'value' | 'upload' | 'counter';

/** One field a value of a property holds. */
export interface ValueFieldDescription {
  /** The value field (`string`, `number`, `reference`, `filename`…). */
  name: string;
  scalar: ScalarKind;
}

/** One property definition as `GET /api/{db}/schema` describes it. */
export interface PropertyDescription {
  _id: string;
  name: string;
  type: ValueType;
  list: boolean;
  multilingual: boolean;
  search: boolean;
  mandatory: boolean;
  readonly: boolean;
  /** A computed property: never written by clients. */
  formula?: string;
  /** Which entities a reference may point to, in the list's filter syntax. */
  reference_query?: string;
  /** The field(s) its values hold: one is the value itself (a `url`'s `string`), several a record (a file's). */
  fields: ValueFieldDescription[];
  /** How a value is added. */
  input: InputKind;
}

/** A type the caller may read, with the definitions of its properties the caller may read. */
export interface TypeDescription {
  _id: string;
  name: string;
  properties: PropertyDescription[];
}

/** Answer of `GET /api/{db}/schema`. */
export interface DatabaseSchema {
  types: TypeDescription[];
}

/** The values of one property of an entity; `[]` when it has none (or `props` left it out). */
export function valuesOf(entity: Entity, property: string): Value[] {
  const values = entity[property];
  return Array.isArray(values) ? values : [];
}
