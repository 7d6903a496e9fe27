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

/**
 * What a front (GraphQL, the SDK's objects, `GET /api/{db}/schema`) shows a field's value as: its
 * GraphQL scalar and its TypeScript type. `id` is an entity id (GraphQL `ID`; GraphQL resolves a
 * property holding one to the entity); `date` is `YYYY-MM-DD` text; `datetime` ISO 8601 text a
 * client may also give as a `Date`.
 */
export const SCALAR_KINDS = ['string', 'number', 'boolean', 'id', 'date', 'datetime'] as const;
export type ScalarKind = (typeof SCALAR_KINDS)[number];

/**
 * How a client adds a value of a type, which the fronts offer or refuse: `value`, its field(s) as
 * given; `upload`, a file's metadata, then its bytes to the signed URL (SPEC §8); `counter`, a step
 * (`{counter: 1}`) the server numbers (`counters.ts`).
 */
export const INPUT_KINDS = ['value', 'upload', 'counter'] as const;
export type InputKind = (typeof INPUT_KINDS)[number];

/**
 * The syntax a definition option's text must parse in: `filters`, a list query's filters only
 * (`parseReferenceQuery`, SPEC §5).
 */
export type OptionSyntax = 'filters';

/**
 * A definition field only properties of some types take (a reference's `reference_query`): its
 * name on a property definition entity and in `GET /api/{db}/schema`, its key on
 * `PropertyDefinition`, and the syntax its text is checked in (`checkDefinition`).
 */
export interface DefinitionOption<Name extends string = string, Key extends string = string> {
  readonly name: Name;
  readonly key: Key;
  readonly syntax: OptionSyntax;
  /** Said of it in the API description. */
  readonly description: string;
}

/** One wire field of a value (`string`, `number`, `filename`, …) with type `T`. */
export interface FieldDescriptor<Name extends string = string, T extends Scalar = Scalar, Input extends TSchema = TSchema, Output extends TSchema = TSchema> {
  readonly name: Name;
  /** What the fronts show its value as (GraphQL scalar, TypeScript type). */
  readonly scalar: ScalarKind;
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

export interface ValueDescriptor<
  Type extends string = string,
  Fields extends readonly FieldDescriptor[] = readonly FieldDescriptor[],
  Options extends readonly DefinitionOption[] = readonly DefinitionOption[],
> {
  /** The definition `type` (SPEC §3, §5). */
  readonly type: Type;
  /**
   * Its wire field(s): an input names exactly these, and the fronts read and write them — one
   * field is the value itself (a url's `string`), several make it a record (a file's).
   */
  readonly fields: Fields;
  /** How a client adds a value; absent: `value`. */
  readonly input?: InputKind;
  /** The definition fields its properties take beyond those every property has (a reference's `reference_query`). */
  readonly options?: Options;
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

export const defineValueType = <const Type extends string, const Fields extends readonly FieldDescriptor[], const Options extends readonly DefinitionOption[] = readonly []>(
  descriptor: ValueDescriptor<Type, Fields, Options>,
) => descriptor;

/** Keeps the option's name and key literal, for `PropertyDefinition` and the schema's wire shape. */
export const defineOption = <const Name extends string, const Key extends string>(option: DefinitionOption<Name, Key>) => option;
