import type { ValueType } from '../types';

/**
 * The type-level picture of a database's definitions, as `entia types` generates it: per type name,
 * per property name, what the definition says. Without generated types every name is allowed and
 * every value is `unknown`-ish (`AnySchema`); with them, a wrong property name, value or operator is
 * a compile error.
 */
export interface PropertyShape {
  type: ValueType;
  list: boolean;
  multilingual: boolean;
  /** Required on create. */
  mandatory?: boolean;
  /** Computed (`formula`) or `readonly`: never written by clients. */
  computed?: boolean;
}

export type TypeShape = Record<string, PropertyShape>;
export type SchemaShape = Record<string, TypeShape>;

/** What an untyped database handle assumes: any type, any property, any value. */
export type AnySchema = Record<string, Record<string, AnyProperty>>;
interface AnyProperty {
  type: ValueType;
  list: boolean;
  multilingual: boolean;
}

/** A file value as read: what a download or thumbnail needs. */
export interface FileInfo {
  /** The value's id: pass it to `download`, `thumbnail` or `deleteProperty`. */
  _id: string;
  filename: string;
  filesize: number;
  filetype: string;
}

export type Sharing = 'private' | 'domain' | 'public';

/** One value as read, by data type. */
export type ReadScalar<T extends ValueType> = T extends 'number' | 'counter'
  ? number
  : T extends 'boolean'
    ? boolean
    : T extends 'file'
      ? FileInfo
      : string;

/** One value as written: datetimes also as `Date`; files are uploaded, and counters numbered by the server, not written. */
export type WriteScalar<T extends ValueType> = T extends 'datetime' ? string | Date : T extends 'file' | 'counter' ? never : ReadScalar<T>;

// `boolean` (an untyped handle's definitions) allows both forms.
type Cardinal<P extends PropertyShape, V> = boolean extends P['list'] ? V | V[] : P['list'] extends true ? V[] : V;
type Lingual<P extends PropertyShape, V, Picked extends boolean> = boolean extends P['multilingual']
  ? V | Record<string, V>
  : P['multilingual'] extends true
    ? Picked extends true
      ? V
      : Record<string, V>
    : V;

/**
 * A property as read: one value or an array (`list`), per language for a multilingual one unless
 * the handle picked a language. A list reads as `[]` when it has no values, a single value is absent.
 */
export type ReadProperty<P extends PropertyShape, Picked extends boolean = false> = Lingual<P, Cardinal<P, ReadScalar<P['type']>>, Picked>;

/** A property as written on create or update; `null` on update removes its values. */
export type WriteProperty<P extends PropertyShape> = Lingual<P, Cardinal<P, WriteScalar<P['type']>>, false>;

/** The system properties an entity object carries when it has them. */
export interface SystemFields {
  _id: string;
  /** The type's name. */
  _type: string;
  /** When it was created (ISO 8601, UTC). */
  _created?: string;
  /** When its values last changed (ISO 8601, UTC). */
  _changed?: string;
  /** Absent: `private`, the default. */
  _sharing?: Sharing;
  _parent?: string[];
  _owner?: string[];
  _editor?: string[];
  _expander?: string[];
  _viewer?: string[];
  _inheritrights?: boolean;
}

type ListKeys<T extends TypeShape> = { [K in keyof T]: T[K]['list'] extends true ? K : never }[keyof T];

/** An entity as a plain object: its system fields, and each property by name. */
export type EntityObject<T extends TypeShape, Picked extends boolean = false> = SystemFields & {
  [K in Exclude<keyof T, ListKeys<T>>]?: ReadProperty<T[K], Picked>;
} & {
  [K in ListKeys<T>]: ReadProperty<T[K], Picked>;
};

/** An entity object with only the `select`ed properties (and its system fields). */
export type Selected<T extends TypeShape, Picked extends boolean, S extends keyof T> = SystemFields & {
  [K in Exclude<S, ListKeys<T>>]?: ReadProperty<T[K], Picked>;
} & {
  [K in Extract<S, ListKeys<T>>]: ReadProperty<T[K], Picked>;
};

/**
 * An optional key named like a member of Object.prototype (`constructor`, `toString`…, valid
 * property names) is checked by TypeScript against that member whenever an object literal leaves it
 * out; allowing the member's type there keeps such objects assignable (the SDK refuses a function
 * at run time).
 */
type Optional<K, V> = K extends keyof Object ? V | Object[K] : V;

type WritableKeys<T extends TypeShape> = { [K in keyof T]: T[K]['computed'] extends true ? never : T[K]['type'] extends 'file' ? never : K }[keyof T];
type MandatoryKeys<T extends TypeShape> = { [K in WritableKeys<T>]: T[K]['mandatory'] extends true ? K : never }[WritableKeys<T>];

/** System properties a create may set. */
export interface SystemInput {
  _parent?: string | string[];
  _sharing?: Sharing;
  _owner?: string | string[];
  _editor?: string | string[];
  _expander?: string | string[];
  _viewer?: string | string[];
  _inheritrights?: boolean;
}

/** What `create` takes: every mandatory property, any other writable one. */
export type CreateInput<T extends TypeShape> = SystemInput & { [K in MandatoryKeys<T>]: WriteProperty<T[K]> } & {
  [K in Exclude<WritableKeys<T>, MandatoryKeys<T>>]?: Optional<K, WriteProperty<T[K]>>;
};

/** What `update` takes: any writable property; `null` removes its values (for one language: `{en: null}`). */
export type UpdateInput<T extends TypeShape> = SystemInput & {
  [K in WritableKeys<T>]?: Optional<K, WriteProperty<T[K]> | null | (T[K]['multilingual'] extends true ? Record<string, null> : never)>;
};

/** What `add` takes: values to add beside the present ones (a single-valued property is replaced). */
export type AddInput<T extends TypeShape> = SystemInput & { [K in WritableKeys<T>]?: Optional<K, WriteProperty<T[K]>> };

/**
 * The filter operators a `where` condition may name (SPEC §7). The SDK cannot import the server's
 * table; test/wire-types.typecheck.ts holds this, and the operator objects below, equal to it.
 */
export type WhereOperator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'exists' | 'regex';

interface Exists {
  exists?: boolean;
}
export interface StringOps extends Exists {
  eq?: string;
  ne?: string;
  in?: string[];
  /** A RegExp (flags from `imsu`) or its `/pattern/flags` text. */
  regex?: RegExp | string;
}
export interface RangeOps<V> extends Exists {
  eq?: V;
  ne?: V;
  gt?: V;
  gte?: V;
  lt?: V;
  lte?: V;
  in?: V[];
}
export interface ReferenceOps extends Exists {
  eq?: string;
  ne?: string;
  in?: string[];
}
export interface BooleanOps extends Exists {
  eq?: boolean;
}
export interface FileOps {
  filename?: string | StringOps;
  filesize?: number | RangeOps<number>;
  filetype?: string | StringOps;
}

/** The operators of a data type (SPEC §7); a bare value means equality. A type kept in `string` (text, url) filters as text. */
export type Condition<T extends ValueType> = T extends 'string' | 'text'
  ? string | StringOps
  : T extends 'number' | 'counter'
    ? number | RangeOps<number>
    : T extends 'date'
      ? string | RangeOps<string>
      : T extends 'datetime'
        ? string | Date | RangeOps<string | Date>
        : T extends 'reference'
          ? string | ReferenceOps
          : T extends 'boolean'
            ? boolean | BooleanOps
            : T extends 'file'
              ? FileOps
              : string | StringOps;

/** Filters of a list, combined with AND; a property matches when any of its values does. */
export type Where<T extends TypeShape> = { [K in keyof T]?: Optional<K, Condition<T[K]['type']>> } & {
  _created?: string | Date | RangeOps<string | Date>;
  _changed?: string | Date | RangeOps<string | Date>;
  _parent?: string | ReferenceOps;
};

type Sortable<T extends TypeShape> = Extract<keyof T, string> | '_created' | '_changed';
/** A sort key: a property name, descending with a leading `-`. */
export type SortKey<T extends TypeShape> = Sortable<T> | `-${Sortable<T>}`;

/** A list's parameters in names rather than wire keys. */
export interface ListParams<T extends TypeShape, S extends keyof T = keyof T> {
  where?: Where<T>;
  /** Full-text search over the type's searchable properties. */
  q?: string;
  sort?: SortKey<T> | SortKey<T>[];
  /** Default 100, at most 1000. */
  limit?: number;
  skip?: number;
  /** Start after the page whose `next` this is (same `where`, `sort` and `q`); not with `skip`. */
  after?: string;
  /** Only these properties (and the system fields). */
  select?: S[];
}

/** The property names of a type whose data type is `file`. */
export type FileKeys<T extends TypeShape> = string extends keyof T
  ? string // an untyped handle: any name
  : { [K in keyof T]: T[K]['type'] extends 'file' ? K : never }[keyof T] & string;
