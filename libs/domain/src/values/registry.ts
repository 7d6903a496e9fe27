import { Type, type TOptional, type TString } from '@sinclair/typebox';
import { BOOLEAN_TYPE } from './boolean';
import { COMPUTED_FIELD_DESCRIPTORS } from './computed-fields';
import { COUNTER_TYPE } from './counter';
import { DATE_TYPE } from './date';
import { DATETIME_TYPE } from './datetime';
import type { DefinitionOption, FieldDescriptor, InputKind, ValueDescriptor } from './descriptor';
import { FILE_TYPE } from './file';
import { NUMBER_TYPE } from './number';
import { REFERENCE_TYPE } from './reference';
import { STRING_TYPE } from './string';
import { TEXT_TYPE } from './text';
import { URL_TYPE } from './url';

/**
 * Every value type (SPEC §3), in the order they are listed to users. Registering a type here is
 * all it takes for validation, storage, filters, sorting, search and formulas to know it.
 */
export const VALUE_DESCRIPTORS = [STRING_TYPE, TEXT_TYPE, NUMBER_TYPE, BOOLEAN_TYPE, DATE_TYPE, DATETIME_TYPE, REFERENCE_TYPE, FILE_TYPE, COUNTER_TYPE, URL_TYPE] as const;

type Registered = (typeof VALUE_DESCRIPTORS)[number];
export type ValueType = Registered['type'];
type RegisteredField = Registered['fields'][number];
export type ValueField = RegisteredField['name'];
type RegisteredOption = NonNullable<Registered['options']>[number];
/** A definition option's key on `PropertyDefinition` (`referenceQuery`), from the registered types. */
export type DefinitionOptionKey = RegisteredOption['key'];
/** A definition option's name on a definition entity and in the schema's description (`reference_query`). */
export type DefinitionOptionName = RegisteredOption['name'];

/** Each value field's wire schema (as a client sends it, or as the API returns it), by name. */
export type FieldSchemas<Form extends 'input' | 'output'> = { [F in RegisteredField as F['name']]: TOptional<F['wire'][Form]> };

/** The value fields of the wire shapes (`wire/value.ts`), from the registered types. */
export function fieldSchemas<Form extends 'input' | 'output'>(form: Form): FieldSchemas<Form> {
  return Object.fromEntries(FIELD_DESCRIPTORS.map((field) => [field.name, Type.Optional(field.wire[form])])) as unknown as FieldSchemas<Form>;
}

/** Each definition option's text on the wire, by name (`GET /api/{db}/schema`), from the registered types. */
export type OptionSchemas = { [O in RegisteredOption as O['name']]: TOptional<TString> };

/** The definition options of the schema's description (`wire/schema.ts`), from the registered types. */
export function optionSchemas(): OptionSchemas {
  return Object.fromEntries(DEFINITION_OPTIONS.map(({ option }) => [option.name, Type.Optional(Type.String({ description: option.description }))])) as unknown as OptionSchemas;
}

export const VALUE_TYPES = VALUE_DESCRIPTORS.map((descriptor) => descriptor.type) as readonly ValueType[];

/** Every value field once (types share some: string and text both use `string`), in registry order. */
export const FIELD_DESCRIPTORS: readonly FieldDescriptor<ValueField>[] = [...new Set(VALUE_DESCRIPTORS.flatMap((d) => d.fields as readonly FieldDescriptor<ValueField>[]))];

/** Every field that can carry a value; an input naming two of them (file's three aside) is refused. */
export const VALUE_FIELDS = FIELD_DESCRIPTORS.map((field) => field.name);

/** A field a query may name: a value field, or one only computed values have (`_reference`'s `property_type`). */
export type QueryField = ValueField | (typeof COMPUTED_FIELD_DESCRIPTORS)[number]['name'];

/** Every field filters, sorts, groups, paths and the index entries know, value fields first. */
export const QUERY_FIELD_DESCRIPTORS: readonly FieldDescriptor<QueryField>[] = [...FIELD_DESCRIPTORS, ...COMPUTED_FIELD_DESCRIPTORS];

const BY_TYPE: ReadonlyMap<string, ValueDescriptor> = new Map(VALUE_DESCRIPTORS.map((d) => [d.type, d as ValueDescriptor]));
const FIELD_NAMES: ReadonlyMap<string, readonly ValueField[]> = new Map(VALUE_DESCRIPTORS.map((d) => [d.type, d.fields.map((field) => field.name)]));
const BY_FIELD: ReadonlyMap<string, FieldDescriptor> = new Map(QUERY_FIELD_DESCRIPTORS.map((f) => [f.name, f as FieldDescriptor]));

export function isValueType(type: unknown): type is ValueType {
  return typeof type === 'string' && BY_TYPE.has(type);
}

export function descriptorOf(type: ValueType): ValueDescriptor {
  return BY_TYPE.get(type)!;
}

export function fieldDescriptorOf(field: QueryField): FieldDescriptor {
  return BY_FIELD.get(field)!;
}

/** The wire field(s) of a type: what an input of it names. */
export function fieldsOf(type: ValueType): readonly ValueField[] {
  return FIELD_NAMES.get(type)!;
}

/** How a client adds a value of a type (`value` unless its descriptor says otherwise). */
export function inputOf(type: ValueType): InputKind {
  return BY_TYPE.get(type)!.input ?? 'value';
}

/** Every definition option once (types may share one), with the types that take it, in registry order. */
export const DEFINITION_OPTIONS: readonly { option: DefinitionOption<DefinitionOptionName, DefinitionOptionKey>; types: readonly ValueType[] }[] = (() => {
  const options = new Map<DefinitionOption, ValueType[]>();
  for (const descriptor of VALUE_DESCRIPTORS as readonly ValueDescriptor<ValueType>[]) {
    for (const option of descriptor.options ?? []) options.set(option, [...(options.get(option) ?? []), descriptor.type]);
  }
  return [...options].map(([option, types]) => ({ option: option as DefinitionOption<DefinitionOptionName, DefinitionOptionKey>, types }));
})();
