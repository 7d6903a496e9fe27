import type { PropertyDescription, ValueType } from '../../src/types';

/** A property definition as `GET /api/{db}/schema` describes it: every flag false unless given. */
export function def(name: string, type: ValueType = 'string', extra: Partial<PropertyDescription> = {}): PropertyDescription {
  return { _id: `def-${name}`, name, type, list: false, multilingual: false, search: false, mandatory: false, readonly: false, ...extra };
}
