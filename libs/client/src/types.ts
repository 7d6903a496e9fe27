import type {
  AccountSchema,
  AuthResultSchema,
  ChangeSchema,
  ChangeEventSchema,
  HistorySchema,
  DeletedSchema,
  EntityListSchema,
  EntitySchema,
  ThumbnailSchema,
  UploadTargetSchema,
  ValueInputSchema,
  ValueSchema,
  WriteResultSchema,
} from '@entia/domain';
import type { Static } from '@sinclair/typebox';

/**
 * Wire shapes of the Entia API (interface §2, SPEC §3 and §7): the values, entities and answers are
 * the very TypeBox schemas the API validates with and publishes, so client and server cannot drift.
 * The server may add fields, which pass through untouched.
 */

/** A value as written: `type` names the property, exactly one value field carries the data. */
export type ValueInput = Static<typeof ValueInputSchema>;

/** Where to PUT a file's bytes right after creating its value; every header is required as given. */
export type UploadTarget = Static<typeof UploadTargetSchema>;

/** A stored value, as returned; file values carry `upload` when just created, `url` when fetched by id. */
export type Value = Static<typeof ValueSchema>;

/** An entity: its `_id`, and one array of values per property name. See `valuesOf`. */
export type Entity = Static<typeof EntitySchema>;

/** Answer to creating an entity or adding values: the values created or overwritten, by property name. */
export type WriteResult = Static<typeof WriteResultSchema>;

/** One page of a list; `count` is all matches, not just this page. */
export type EntityList = Static<typeof EntityListSchema>;

export type Deleted = Static<typeof DeletedSchema>;

/** One change of an entity: `type` the property (or `_created`/`_deleted`), `old` and `new` its value before and after; `by` null and `worker` true for the worker's. */
export type Change = Static<typeof ChangeSchema>;

/** One page of an entity's history, newest first; `count` is every change. */
export type History = Static<typeof HistorySchema>;
/** A square WebP thumbnail of an image file value, with a download `url` valid 60 s. */
export type Thumbnail = Static<typeof ThumbnailSchema>;

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
export type Account = Static<typeof AccountSchema>;

/** The databases the API key opens, and a JWT valid 48 hours. */
export type AuthResult = Static<typeof AuthResultSchema>;

/** The values of one property of an entity; `[]` when it has none (or `props` left it out). */
export function valuesOf(entity: Entity, property: string): Value[] {
  const values = entity[property];
  return Array.isArray(values) ? values : [];
}

/** One change as the change feed delivers it (`subscribe`); `inView: false` says the entity left the subscriber's view. */
export type ChangeEvent = Static<typeof ChangeEventSchema>;
