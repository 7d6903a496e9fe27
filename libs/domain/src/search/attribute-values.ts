import { isSecretProperty } from '../definitions/system';
import type { Properties } from '../entity';
import type { FilterField, Scalar } from '../query/ast';

/** Strings longer than this are left out: an equality filter on them falls back to a scan. */
export const MAX_ATTRIBUTE_STRING = 256;

// A separator no property name, field name or indexed value can contain ambiguously: names are
// letters/digits/_ and the value comes last.
const SEPARATOR = '\u001f';

/** The index entry of `property.field = value` (numbers and booleans in their JSON form). */
export function attributeValue(property: string, field: FilterField, value: Scalar): string {
  return `${property}${SEPARATOR}${field}${SEPARATOR}${JSON.stringify(value)}`;
}

/**
 * One entry per (property, field, value) for equality-style filters: a single multikey index on
 * them serves `eq` and `in` on any property, whatever its name, on any engine.
 */
export function attributeValues(properties: Properties): string[] {
  const entries = new Set<string>();
  for (const [name, values] of Object.entries(properties)) {
    // Secret values are never filtered on (but for `exists`), so they need no entry, and an index
    // of them would be one more copy of key material.
    if (isSecretProperty(name)) continue;
    for (const value of values) {
      const scalars: [FilterField, Scalar | undefined][] = [
        ['string', value.string !== undefined && value.string.length <= MAX_ATTRIBUTE_STRING ? value.string : undefined],
        ['number', value.number],
        ['boolean', value.boolean],
        ['date', value.date],
        ['reference', value.reference],
        ['filetype', value.filetype],
      ];
      for (const [field, scalar] of scalars) if (scalar !== undefined) entries.add(attributeValue(name, field, scalar));
    }
  }
  return [...entries];
}

/** Whether `attributeValues` holds every value of this kind (else the index cannot answer it). */
export function isIndexedAttribute(field: FilterField, value: Scalar): boolean {
  if (field === 'string') return typeof value === 'string' && value.length <= MAX_ATTRIBUTE_STRING;
  return field === 'number' || field === 'boolean' || field === 'date' || field === 'reference' || field === 'filetype';
}
