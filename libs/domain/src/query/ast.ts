import type { ValueField } from '../values/types';
import type { CursorPosition } from './cursor';

/** Operators of SPEC §7's filter syntax; `eq` is written without a suffix. */
export const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'regex'] as const;
export type Operator = (typeof OPERATORS)[number];

/** The value fields a filter or sort may name (text properties filter as `string`). */
export type FilterField = Exclude<ValueField, never>;

/** A scalar a filter compares with, already typed for its field (references and datetimes as strings). */
export type Scalar = string | number | boolean;

export type Filter =
  | { property: string; field: FilterField; op: 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'; value: Scalar }
  | { property: string; field: FilterField; op: 'in'; values: Scalar[] }
  | { property: string; field: FilterField; op: 'exists'; value: boolean }
  | { property: string; field: FilterField; op: 'regex'; pattern: string; flags: string };

export interface SortKey {
  property: string;
  field: FilterField;
  direction: 1 | -1;
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
}
