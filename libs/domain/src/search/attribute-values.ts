import { isSecretProperty } from '../definitions/system';
import type { Properties } from '../entity';
import type { FilterField, Scalar } from '../query/ast';
import { QUERY_FIELD_DESCRIPTORS, fieldDescriptorOf } from '../values/registry';

export { MAX_ATTRIBUTE_STRING } from '../values/string';

// A separator no property name, field name or indexed value can contain ambiguously: names are
// letters/digits/_ and the value comes last.
const SEPARATOR = '\u001f';

/** The index entry of `property.field = value` (numbers and booleans in their JSON form). */
export function attributeValue(property: string, field: FilterField, value: Scalar): string {
  return `${property}${SEPARATOR}${field}${SEPARATOR}${JSON.stringify(value)}`;
}

/**
 * One entry per (property, field, value) for equality-style filters: a single multikey index on
 * them serves `eq` and `in` on any property, whatever its name, on any engine. Which values have
 * an entry is each field's `indexed` rule.
 */
export function attributeValues(properties: Properties): string[] {
  const entries = new Set<string>();
  for (const [name, values] of Object.entries(properties)) {
    // Secret values are never filtered on (but for `exists`), so they need no entry, and an index
    // of them would be one more copy of key material.
    if (isSecretProperty(name)) continue;
    for (const value of values) {
      for (const field of QUERY_FIELD_DESCRIPTORS) {
        const scalar = value[field.name];
        if (scalar !== undefined && isIndexedAttribute(field.name, scalar)) entries.add(attributeValue(name, field.name, scalar));
      }
    }
  }
  return [...entries];
}

/** Whether `attributeValues` holds every value of this kind (else the index cannot answer it). */
export function isIndexedAttribute(field: FilterField, value: Scalar): boolean {
  return fieldDescriptorOf(field).indexed?.(value) ?? false;
}
