import type { QueryField } from '../values/registry';
import type { Operator, OperandOf } from './operators';

export { OPERATORS, type Operator, type Scalar } from './operators';

/** The value fields a filter or sort may name (text properties filter as `string`). */
export type FilterField = QueryField;

/**
 * `<property>._id.exists=true|false` (SPEC §7a): whether the entity has any value of the property.
 * Every value has an `_id`, whatever its type, so it asks about the property, not one of its fields;
 * it takes no other operator, and is no value field (nothing sorts, groups or shows by it).
 */
export const PRESENCE_FIELD = '_id';

/** A filter on a value field with operator `O`: its operand fields are the operator's (`OPERATOR_TABLE`). */
export type FieldFilter<O extends Operator = Operator> = { [K in O]: { property: string; field: FilterField; op: K } & OperandOf<K> }[O];

/** `<property>._id.exists`: whether the property has any value. */
export interface PresenceFilter {
  property: string;
  field: typeof PRESENCE_FIELD;
  op: 'exists';
  value: boolean;
}

export type Filter = FieldFilter | PresenceFilter;

/** The filters with operator `O` (for `exists`, the presence filter too). */
export type FilterOf<O extends Operator> = Extract<Filter, { op: O }>;

/** A sort key's value in a cursor: a string (text, dates and datetimes as their ISO text), a number, or null (no value). */
export type CursorValue = string | number | null;

/** Where a page ends: its last entity's sort values, in the order of the sort keys, and its `_id` (query/cursor.ts). */
export interface CursorPosition {
  values: CursorValue[];
  id: string;
}

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
