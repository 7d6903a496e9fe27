import type { TSchema } from '@sinclair/typebox';
import type { Operator, Scalar } from '../query/operators';

/**
 * What a value type is, in one object (docs/architecture.md, "Value types"): every module that
 * validates, stores, filters, sorts, searches or computes values reads these descriptors rather
 * than knowing the types itself, so a new type is one descriptor file, its test and one line in
 * `registry.ts`.
 */

/** A sort key: strings and numbers order the same on every engine. */
export type SortScalar = string | number;

/** The filter operators of SPEC §7 that each kind of field takes. */
export const TEXT_OPERATORS: readonly Operator[] = ['eq', 'ne', 'regex', 'in', 'exists'];
export const ORDERED_OPERATORS: readonly Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'];

/**
 * How the store keeps a field's scalar: as given, as an ObjectId (24-hex text on the wire), or as
 * a BSON date (ISO text on the wire, so datetimes compare as moments, not as text).
 */
export type StorageForm = 'as-is' | 'object-id' | 'date';

/** One wire field of a value (`string`, `number`, `filename`, …) with type `T`. */
export interface FieldDescriptor<Name extends string = string, T extends Scalar = Scalar, Input extends TSchema = TSchema, Output extends TSchema = TSchema> {
  readonly name: Name;
  /**
   * Its JSON schema on the wire, from which `wire/value.ts` builds the value shapes: as a client
   * may send it (bounded, so a request stays small; the type's check bounds the content) and as
   * the API returns it.
   */
  readonly wire: { readonly input: Input; readonly output: Output };
  readonly storedAs: StorageForm;
  /** How `<property>.<field>[.<operator>]=<text>` filters on it (SPEC §7). */
  readonly filter: {
    readonly operators: readonly Operator[];
    /** The text of a filter value as a scalar of this field, or undefined when it is not one. */
    parse(text: string): T | undefined;
    /** What a refused filter value is told. */
    readonly refused: string;
  };
  /** The key `sort=` orders it by; absent when the field cannot be sorted by. */
  sortKey?(value: T): SortScalar;
  /** Whether the attribute index (`__av`) holds this value, so it can serve `eq`/`in`; absent: never. */
  indexed?(value: T): boolean;
  /** The text `q` searches in it, on properties with `search: true`; absent: not searched. */
  searchText?(value: T): string;
}

/** The limits the value checks enforce (configurable, SPEC §3). */
export interface ValueLimits {
  maxStringLength: number;
  maxTextLength: number;
  maxFileSize: number;
}

/** What a type's check knows besides the input: the limits and, for `_sharing`, the values allowed. */
export interface CheckContext {
  limits: ValueLimits;
  allowed?: readonly string[];
}

/** A refused input: which field, and why. */
export interface Refusal {
  readonly refused: string;
  readonly message: string;
}

export const refuse = (field: string, message: string): Refusal => ({ refused: field, message });
export const isRefusal = (result: object): result is Refusal => 'refused' in result;

/** The fields of an input a type's check reads; each is checked for its type, never coerced. */
export type InputFields = Readonly<Record<string, unknown>>;

/** A stored value as a formula or the codec sees it: its fields by name. */
export type StoredFields = Readonly<Record<string, unknown>>;

/** The formula result kinds a property can store (SPEC §9). */
export type FormulaResult = 'number' | 'string' | 'boolean';

export interface ValueDescriptor<Type extends string = string, Fields extends readonly FieldDescriptor[] = readonly FieldDescriptor[]> {
  /** The definition `type` (SPEC §3, §5). */
  readonly type: Type;
  /** Its wire field(s): an input names exactly these. */
  readonly fields: Fields;
  /**
   * Fields the server sets on its stored values beside `fields` (a reference's label, `string`):
   * never written by a client, but filtered and sorted by like its own (`checkQueryTypes`).
   */
  readonly carries?: readonly FieldDescriptor[];
  /**
   * The data to store for an input that names exactly `fields` (the caller checks that, and the
   * language), or the refusal of the first field that fails its rule.
   */
  check(input: InputFields, context: CheckContext): Record<string, Scalar> | Refusal;
  readonly formula: {
    /** The scalar a formula sees for a stored value of this type, or undefined when it has none. */
    read(value: StoredFields): unknown;
    /** Which formula result a computed property of this type stores; absent: none (the property stays absent). */
    readonly stores?: FormulaResult;
  };
}

/** Keeps the field's name and scalar type literal, for the `Value` type derived from the registry. */
export const defineField = <const Name extends string, T extends Scalar, Input extends TSchema, Output extends TSchema>(field: FieldDescriptor<Name, T, Input, Output>) => field;

export const defineValueType = <const Type extends string, const Fields extends readonly FieldDescriptor[]>(descriptor: ValueDescriptor<Type, Fields>) =>
  descriptor;
