import type { StoredValue } from '../wire/value';
import type { ValueField } from './registry';

export { VALUE_FIELDS, VALUE_TYPES, fieldsOf, isValueType, type ValueField, type ValueType } from './registry';

/**
 * A value as stored and returned (interface §2.2); ids are 24-hex strings at this layer. One
 * definition, the wire schema, whose value fields are those of the registered value types.
 */
export type Value = StoredValue;

/** The part of a value that is data: what an input sets, without identity or provenance. */
export type ValueData = Partial<Pick<Value, ValueField | 'language'>>;
