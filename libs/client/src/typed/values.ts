import type { Entity, PropertyDescription, ScalarKind, TypeDescription, Value, ValueFieldDescription, ValueInput } from '../types';

/**
 * The name-based object form of an entity and the wire's value arrays, one into the other, by the
 * type's definitions. Pure: the schema comes in, nothing is fetched.
 */

/** Reference-valued system properties: what they hold is a list of entity ids. */
export const REFERENCE_SYSTEM = ['_parent', '_owner', '_editor', '_expander', '_viewer'] as const;
const SYSTEM_INPUT = new Set<string>([...REFERENCE_SYSTEM, '_sharing', '_inheritrights']);

/** Input that cannot become values: a caller's mistake, told before anything is sent. */
export class InputError extends TypeError {
  override readonly name = 'InputError';
}

/** The definition of `name` in `type`, or undefined; own names only (`constructor` is not Object's). */
export function definitionOf(type: TypeDescription, name: string): PropertyDescription | undefined {
  return type.properties.find((property) => property.name === name);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Date) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** What a written value must be, by the scalar its field reads as, and the wire form it is sent in. */
const WRITTEN: Record<ScalarKind, { expected: string; wire(value: unknown): unknown }> = {
  string: { expected: 'a string', wire: (value) => (typeof value === 'string' ? value : undefined) },
  id: { expected: 'an entity id', wire: (value) => (typeof value === 'string' ? value : undefined) },
  date: { expected: 'a date as YYYY-MM-DD', wire: (value) => (typeof value === 'string' ? value : undefined) },
  number: { expected: 'a finite number', wire: (value) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined) },
  boolean: { expected: 'a boolean', wire: (value) => (typeof value === 'boolean' ? value : undefined) },
  datetime: {
    expected: 'a Date or an ISO 8601 string',
    wire: (value) => (value instanceof Date ? (Number.isNaN(value.getTime()) ? undefined : value.toISOString()) : typeof value === 'string' ? value : undefined),
  },
};

/**
 * One written value's data field(s), as the schema describes the property (`fields`, `input`), so a
 * value type this SDK does not know is written all the same: one field takes the value itself,
 * several take an object of them.
 */
function valueField(property: PropertyDescription, value: unknown): Omit<ValueInput, 'type'> {
  if (property.input === 'upload') throw new InputError(`"${property.name}" is a file property: store files with upload()`);
  if (property.input === 'counter') {
    throw new InputError(`"${property.name}" is a counter: the server numbers its values; add one with {type: "${property.name}", counter: 1}`);
  }
  const one = (field: ValueFieldDescription, item: unknown, at: string) => {
    const written = WRITTEN[field.scalar];
    const wire = written.wire(item);
    if (wire !== undefined) return wire;
    throw new InputError(`"${at}" takes ${item instanceof Date && field.scalar === 'datetime' ? 'a valid Date' : written.expected}, not ${describe(item)}`);
  };
  if (property.fields.length === 1) return { [property.fields[0]!.name]: one(property.fields[0]!, value, property.name) };
  if (!isPlainObject(value)) throw new InputError(`"${property.name}" takes {${property.fields.map((field) => field.name).join(', ')}}, not ${describe(value)}`);
  return Object.fromEntries(property.fields.map((field) => [field.name, one(field, value[field.name], `${property.name}.${field.name}`)]));
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** The values of one property as written: a single value or an array of them (`list`). */
function cardinalValues(property: PropertyDescription, input: unknown, language: string | undefined): ValueInput[] {
  const items = Array.isArray(input) ? input : [input];
  if (Array.isArray(input) && !property.list) throw new InputError(`"${property.name}" holds one value, not an array`);
  return items.map((item) => ({ type: property.name, ...valueField(property, item), ...(language === undefined ? {} : { language }) }));
}

/** A system property of a create or add: rights and parents as ids, sharing, inheritance. */
function systemValues(name: string, input: unknown): ValueInput[] {
  if (name === '_sharing') {
    if (typeof input !== 'string') throw new InputError('"_sharing" takes private, domain or public');
    return [{ type: name, string: input }];
  }
  if (name === '_inheritrights') {
    if (typeof input !== 'boolean') throw new InputError('"_inheritrights" takes a boolean');
    return [{ type: name, boolean: input }];
  }
  const ids = Array.isArray(input) ? input : [input];
  return ids.map((id) => {
    if (typeof id !== 'string') throw new InputError(`"${name}" takes entity ids`);
    return { type: name, reference: id };
  });
}

/** Where one written property's values go: per language when it is multilingual. */
function propertyValues(property: PropertyDescription, input: unknown): ValueInput[] {
  if (property.formula !== undefined || property.readonly) throw new InputError(`"${property.name}" is ${property.formula !== undefined ? 'computed' : 'read-only'}`);
  if (!property.multilingual) return cardinalValues(property, input, undefined);
  if (!isPlainObject(input)) throw new InputError(`"${property.name}" is multilingual: give {language: value}`);
  return Object.entries(input).flatMap(([language, value]) => (value === undefined || value === null ? [] : cardinalValues(property, value, language)));
}

/** A name the object carries that the type does not define (or the caller may not read). */
export class UnknownPropertyError extends InputError {
  constructor(
    readonly property: string,
    readonly typeName: string,
  ) {
    super(`type "${typeName}" has no property "${property}"`);
  }
}

/** A type name the schema does not hold (or not one the caller may read). */
export class UnknownTypeError extends InputError {
  constructor(readonly typeName: string) {
    super(`no type "${typeName}" (or none the caller may read)`);
  }
}

/**
 * The values a create or add writes for `input` (`undefined` properties are left out; `null` is for
 * `update`). Throws `InputError` for a value of the wrong kind, a computed or file property, and
 * `UnknownPropertyError` for a name the type does not define.
 */
export function toValueInputs(type: TypeDescription, input: Record<string, unknown>): ValueInput[] {
  if (!isPlainObject(input)) throw new InputError('give the properties as a plain object');
  return Object.keys(input).flatMap((name) => {
    const value = input[name];
    if (value === undefined) return [];
    if (value === null) throw new InputError(`"${name}": null removes values, which only update() does`);
    if (SYSTEM_INPUT.has(name)) return systemValues(name, value);
    if (name.startsWith('_')) throw new InputError(`"${name}" cannot be written here`);
    const property = definitionOf(type, name);
    if (!property) throw new UnknownPropertyError(name, type.name);
    return propertyValues(property, value);
  });
}

/** How entity ids become names in an object: the types a database handle knows. */
export interface ReadContext {
  typeName(typeId: string): string | undefined;
  /** Read multilingual properties in this language only. */
  language?: string | undefined;
  /** The properties asked for, when not all were. */
  select?: readonly string[] | undefined;
}

/**
 * One stored value as read, by the fields the schema says it holds: one field is the value itself
 * (a reference's id, though it also carries its target's label in `string`), several a record
 * with the value's `_id` (a file's metadata, what a download needs).
 */
function readScalar(property: PropertyDescription | undefined, value: Value): unknown {
  const fields = value as unknown as Record<string, unknown>;
  if (property === undefined) {
    // No definition to go by: a file's metadata, else the first data field, `reference` before its label.
    if (value.filename !== undefined) return { _id: value._id, filename: value.filename, filesize: value.filesize, filetype: value.filetype };
    return value.reference ?? value.string ?? value.number ?? value.boolean ?? value.date ?? value.datetime;
  }
  if (property.fields.length === 1) return fields[property.fields[0]!.name];
  return Object.fromEntries([['_id', value._id], ...property.fields.map((field) => [field.name, fields[field.name]])]);
}

function readProperty(property: PropertyDescription | undefined, values: Value[], language: string | undefined): unknown {
  // A property the caller cannot see the definition of reads as a list: nothing says it is single.
  const list = property ? property.list : true;
  const cardinal = (items: Value[]) => (list ? items.map((value) => readScalar(property, value)) : items[0] === undefined ? undefined : readScalar(property, items[0]));
  if (!property?.multilingual) return cardinal(values);
  if (language !== undefined) return cardinal(values.filter((value) => value.language === language));
  const byLanguage: Record<string, Value[]> = Object.create(null);
  for (const value of values) (byLanguage[value.language ?? ''] ??= []).push(value);
  return Object.fromEntries(Object.entries(byLanguage).map(([lang, items]) => [lang, cardinal(items)]));
}

function readSystem(name: string, values: Value[], context: ReadContext): unknown {
  const first = values[0];
  switch (name) {
    case '_type':
      return first?.reference === undefined ? undefined : (context.typeName(first.reference) ?? first.reference);
    case '_created':
    case '_changed':
      return first?.datetime;
    case '_sharing':
      return first?.string;
    case '_inheritrights':
      return first?.boolean;
    default: {
      if (!(REFERENCE_SYSTEM as readonly string[]).includes(name)) return undefined;
      // A right list's own holders, what an update writes back: the API also lists the holders of
      // the levels above (an owner under `_editor`, marked by `property_type`), who hold those.
      const own = values.filter((value) => value.property_type === undefined);
      return own.length === 0 && values.length > 0 ? undefined : own.map((value) => value.reference);
    }
  }
}

/**
 * The object form of a wire entity: system fields, each property by name (a list as an array, `[]`
 * when it has no values; a multilingual one as `{language: value}` unless a language was picked).
 */
export function toObject(entity: Entity, type: TypeDescription | undefined, context: ReadContext): Record<string, unknown> {
  // No prototype: a property named `constructor` or `__proto__` is data, not Object's.
  const object: Record<string, unknown> = Object.create(null);
  object._id = entity._id;
  for (const [name, raw] of Object.entries(entity)) {
    if (name === '_id' || !Array.isArray(raw)) continue;
    const value = name.startsWith('_') ? readSystem(name, raw, context) : readProperty(type && definitionOf(type, name), raw, context.language);
    if (value !== undefined) object[name] = value;
  }
  for (const property of type?.properties ?? []) {
    if (!property.list || property.name in object) continue;
    if (context.select && !context.select.includes(property.name)) continue;
    object[property.name] = property.multilingual && context.language === undefined ? {} : [];
  }
  return Object.setPrototypeOf(object, Object.prototype) as Record<string, unknown>;
}
