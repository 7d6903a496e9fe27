/** The eight data types of SPEC §3 and the value field(s) each one uses. */
export const VALUE_TYPES = ['string', 'text', 'number', 'boolean', 'date', 'datetime', 'reference', 'file'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

export const FILE_FIELDS = ['filename', 'filesize', 'filetype'] as const;

/** Every field that can carry a value; an input naming two of them (file's three aside) is refused. */
export const VALUE_FIELDS = ['string', 'number', 'boolean', 'date', 'datetime', 'reference', ...FILE_FIELDS] as const;
export type ValueField = (typeof VALUE_FIELDS)[number];

export function fieldsOf(type: ValueType): readonly ValueField[] {
  switch (type) {
    case 'string':
    case 'text':
      return ['string'];
    case 'file':
      return FILE_FIELDS;
    default:
      return [type];
  }
}

export function isValueType(type: unknown): type is ValueType {
  return typeof type === 'string' && (VALUE_TYPES as readonly string[]).includes(type);
}

/** A value as stored and returned (interface §2.2); its one definition is the wire schema. */
export type Value = import('../wire/value').StoredValue;

/** The part of a value that is data: what an input sets, without identity or provenance. */
export type ValueData = Partial<Pick<Value, ValueField | 'language'>>;
