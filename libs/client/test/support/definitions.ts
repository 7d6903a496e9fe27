import type { PropertyDescription, ValueType } from '../../src/types';

type Front = Pick<PropertyDescription, 'fields' | 'input'>;
const single = (name: string, scalar: PropertyDescription['fields'][number]['scalar']): Front => ({ fields: [{ name, scalar }], input: 'value' });

/** What the server's schema says each type's values hold and how they are added (its value descriptors). */
export const FRONT_OF: Record<ValueType, Front> = {
  string: single('string', 'string'),
  text: single('string', 'string'),
  url: single('string', 'string'),
  number: single('number', 'number'),
  boolean: single('boolean', 'boolean'),
  date: single('date', 'date'),
  datetime: single('datetime', 'datetime'),
  reference: single('reference', 'id'),
  counter: { ...single('number', 'number'), input: 'counter' },
  file: {
    fields: [
      { name: 'filename', scalar: 'string' },
      { name: 'filesize', scalar: 'number' },
      { name: 'filetype', scalar: 'string' },
    ],
    input: 'upload',
  },
};

/** A property definition as `GET /api/{db}/schema` describes it: every flag false unless given. */
export function def(name: string, type: ValueType = 'string', extra: Partial<PropertyDescription> = {}): PropertyDescription {
  return { _id: `def-${name}`, name, type, list: false, multilingual: false, search: false, mandatory: false, readonly: false, ...FRONT_OF[type], ...extra };
}
