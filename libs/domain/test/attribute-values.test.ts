import { attributeValue, attributeValues, isIndexedAttribute, newProperties, type Value } from '@entia/domain';

const value = (type: string, fields: Partial<Value>): Value => ({ _id: 'a'.repeat(24), type, ...fields, created: { at: '2024-01-01T00:00:00.000Z', by: 'b'.repeat(24) } });

describe('attributeValues: the equality index entries of an entity', () => {
  it('has one entry per property, field and value, for every indexed kind', () => {
    const entries = attributeValues(
      newProperties([
        ['tag', [value('tag', { string: 'poetry' }), value('tag', { string: 'travel' })]],
        ['pages', [value('pages', { number: 412.5 })]],
        ['done', [value('done', { boolean: false })]],
        ['published', [value('published', { date: '2024-02-29' })]],
        ['author', [value('author', { reference: 'c'.repeat(24) })]],
        ['scan', [value('scan', { filename: 'a.pdf', filesize: 10, filetype: 'application/pdf' })]],
      ]),
    );
    expect(entries.sort()).toEqual(
      [
        attributeValue('tag', 'string', 'poetry'),
        attributeValue('tag', 'string', 'travel'),
        attributeValue('pages', 'number', 412.5),
        attributeValue('done', 'boolean', false),
        attributeValue('published', 'date', '2024-02-29'),
        attributeValue('author', 'reference', 'c'.repeat(24)),
        attributeValue('scan', 'filetype', 'application/pdf'),
      ].sort(),
    );
  });

  it('keeps property names apart from values that look like them', () => {
    expect(attributeValue('a', 'string', 'b\u001fstring\u001f"c"')).not.toBe(attributeValue('a\u001fstring\u001f"b"', 'string', 'c'));
    expect(attributeValue('n', 'number', 1)).not.toBe(attributeValue('n', 'string', '1'));
  });

  it('leaves out long strings and API key hashes, and says so', () => {
    const long = 'x'.repeat(257);
    const entries = attributeValues(newProperties([['text', [value('text', { string: long })]], ['_api_key', [value('_api_key', { string: 'hash' })]]]));
    expect(entries).toEqual([]);
    expect(isIndexedAttribute('string', long)).toBe(false);
    expect(isIndexedAttribute('string', 'x'.repeat(256))).toBe(true);
    expect(isIndexedAttribute('datetime', '2024-01-01T00:00:00.000Z')).toBe(false);
  });
});
