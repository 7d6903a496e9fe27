import type { QueryField } from '../values/registry';
import type { CursorPosition } from './cursor';

/** Operators of SPEC §7's filter syntax; `eq` is written without a suffix. */
export const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'regex'] as const;
export type Operator = (typeof OPERATORS)[number];

/** The value fields a filter or sort may name (text properties filter as `string`). */
export type FilterField = QueryField;

/** A scalar a filter compares with, already typed for its field (references and datetimes as strings). */
export type Scalar = string | number | boolean;

/**
 * `<property>._id.exists=true|false` (SPEC §7a): whether the entity has any value of the property.
 * Every value has an `_id`, whatever its type, so it asks about the property, not one of its fields;
 * it takes no other operator, and is no value field (nothing sorts, groups or shows by it).
 */
export const PRESENCE_FIELD = '_id';

export type Filter =
  | { property: string; field: FilterField; op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'; value: Scalar }
  | { property: string; field: FilterField; op: 'in'; values: Scalar[] }
  | { property: string; field: FilterField; op: 'exists'; value: boolean }
  | { property: string; field: FilterField; op: 'regex'; pattern: string; flags: string }
  | { property: string; field: typeof PRESENCE_FIELD; op: 'exists'; value: boolean };

export interface SortKey {
  property: string;
  field: FilterField;
  direction: 1 | -1;
}

/** One key of a grouped list (`group=_type.reference`): a property and one value field of it. */
export interface GroupKey {
  property: string;
  field: FilterField;
}

/** A parsed list query: what the store compiles, whatever engine it runs on. */
export interface ListQuery {
  filters: Filter[];
  sort: SortKey[];
  limit: number;
  skip: number;
  /** Normalised search terms, each to match the beginning of a word. */
  terms: string[];
  props?: string[];
  /** `none`: no count at all (cheaper: no second scan of the matches); absent: count every match (`count=exact`). */
  count?: 'none';
  /** The page starts strictly after this position in the sort order (`after`, a decoded cursor); never with `skip`. */
  after?: CursorPosition;
  /** Rows of matches counted per distinct combination of these keys' values instead of entities (`group`, query/group.ts). */
  group?: GroupKey[];
}
