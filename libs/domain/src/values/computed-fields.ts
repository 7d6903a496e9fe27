import { Type } from '@sinclair/typebox';
import { defineField } from './descriptor';
import { MAX_ATTRIBUTE_STRING, TEXT_FILTER, sortable } from './string';

/** A name the server wrote: filtered, indexed and sorted like a short text. */
const nameField = <Name extends string>(name: Name) =>
  defineField({
    name,
    scalar: 'string',
    wire: { input: Type.String(), output: Type.String() },
    storedAs: 'as-is',
    filter: TEXT_FILTER,
    sortKey: (value: string) => sortable(value),
    indexed: (value: string) => value.length <= MAX_ATTRIBUTE_STRING,
  });

/**
 * Fields only computed values have — a `_reference` entry's `property_type` (the property the
 * reference is in) and `entity_type` (the target's type name) — filtered, grouped, sorted
 * and indexed like any value field (`_reference.property_type.ne=_parent`), never written: they are
 * not fields of a value type, so no input names them.
 */
export const COMPUTED_FIELD_DESCRIPTORS = [nameField('property_type'), nameField('entity_type')] as const;
