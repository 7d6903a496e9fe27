import { FIELD_DESCRIPTORS, VALUE_DESCRIPTORS, VALUE_FIELDS, VALUE_TYPES, descriptorOf, fieldsOf, isValueType } from '@entia/domain';

/** The registry of value types: the one list every other module reads. */
describe('the value type registry', () => {
  it("holds the eight types of SPEC §3, in order, Entu's counter (issue 33) and url (issue 34)", () => {
    expect(VALUE_TYPES).toEqual(['string', 'text', 'number', 'boolean', 'date', 'datetime', 'reference', 'file', 'counter', 'url']);
    expect(VALUE_DESCRIPTORS.map((descriptor) => descriptor.type)).toEqual(VALUE_TYPES);
  });

  it('knows every field once, shared ones included', () => {
    expect(VALUE_FIELDS).toEqual(['string', 'number', 'boolean', 'date', 'datetime', 'reference', 'filename', 'filesize', 'filetype']);
    expect(FIELD_DESCRIPTORS.map((field) => field.name)).toEqual(VALUE_FIELDS);
  });

  it.each([
    ['string', ['string']],
    ['text', ['string']],
    ['number', ['number']],
    ['reference', ['reference']],
    ['file', ['filename', 'filesize', 'filetype']],
    ['counter', ['number']],
    ['url', ['string']],
  ] as const)('fieldsOf(%s) is %j', (type, fields) => {
    expect(fieldsOf(type)).toEqual(fields);
    expect(descriptorOf(type).type).toBe(type);
  });

  it.each([
    ['string', true],
    ['file', true],
    ['url', true],
    ['URL', false],
    ['String', false],
    ['constructor', false],
    [undefined, false],
    [1, false],
  ])('isValueType(%j) is %s', (type, expected) => {
    expect(isValueType(type)).toBe(expected);
  });

  it.each(VALUE_DESCRIPTORS.map((descriptor) => [descriptor.type, descriptor] as const))('%s: every field takes eq and exists, and says why it refuses a filter value', (_, descriptor) => {
    for (const field of descriptor.fields) {
      expect(field.filter.operators).toContain('eq');
      expect(field.filter.operators).toContain('exists');
      expect(field.filter.refused.length).toBeGreaterThan(0);
    }
  });
});
