import type { FieldValues, ValueField } from './registry';

export { VALUE_FIELDS, VALUE_TYPES, fieldsOf, isValueType, type ValueField, type ValueType } from './registry';

/**
 * A value as stored and returned (interface §2.2); ids are 24-hex strings at this layer. Its value
 * fields are those of the registered value types (`values/registry.ts`).
 */
export type Value = FieldValues & {
  _id: string;
  type: string;
  language?: string;
  /** On a right value: copied from a `_parent` by `_inheritrights` (kept by the worker, not writable). */
  inherited?: true;
  created: { at: string; by: string };
};

/** The part of a value that is data: what an input sets, without identity or provenance. */
export type ValueData = Partial<Pick<Value, ValueField | 'language'>>;
