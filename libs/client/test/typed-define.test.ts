import { DefinitionMismatchError, definitionDifferences, definitionObjects } from '../src/typed/define';
import type { PropertyDescription } from '../src/types';
import { InputError } from '../src/typed/values';

// `db.defineType(name, properties)`: each definition as the property entity it creates.
describe('definitionObjects', () => {
  it.each([
    ['a data type alone', { title: 'string' }, [{ name: 'title', type: 'string', _sharing: 'domain' }]],
    ['flags only when true', { tags: { type: 'string', list: true, search: false } }, [{ name: 'tags', type: 'string', list: true, _sharing: 'domain' }]],
    [
      'every flag, a formula and a reference query',
      { total: { type: 'number', multilingual: true, search: true, mandatory: true, readonly: true, formula: 'a b SUM' }, author: { type: 'reference', reference_query: '_type.reference=x' } },
      [
        { name: 'total', type: 'number', multilingual: true, search: true, mandatory: true, readonly: true, formula: 'a b SUM', _sharing: 'domain' },
        { name: 'author', type: 'reference', reference_query: '_type.reference=x', _sharing: 'domain' },
      ],
    ],
    ['a name that is an Object member is data', { constructor: 'string' }, [{ name: 'constructor', type: 'string', _sharing: 'domain' }]],
  ] as const)('%s', (_, properties, expected) => {
    expect(definitionObjects(properties as never, 'domain')).toEqual(expected);
  });

  it('takes the sharing asked for', () => {
    expect(definitionObjects({ title: 'string' }, 'public')).toEqual([{ name: 'title', type: 'string', _sharing: 'public' }]);
  });

  it.each([
    ['null', { title: null }],
    ['a number', { title: 3 }],
    ['an object without a type', { title: { list: true } }],
  ])('refuses %s before anything is created', (_, properties) => {
    expect(() => definitionObjects(properties as never, 'domain')).toThrow(InputError);
  });
});

describe('definitionDifferences', () => {
  const existing = (more: Partial<PropertyDescription> = {}): PropertyDescription => ({
    _id: 'p1',
    name: 'title',
    type: 'string',
    list: false,
    multilingual: false,
    search: false,
    mandatory: false,
    readonly: false,
    fields: [{ name: 'string', scalar: 'string' }],
    input: 'value',
    ...more,
  });
  const declared = (properties: Parameters<typeof definitionObjects>[0]) => definitionObjects(properties, 'domain')[0]!;

  it.each<[string, Record<string, unknown>, PropertyDescription, string[]]>([
    ['the same', declared({ title: 'string' }), existing(), []],
    ['the same flags and formula', declared({ title: { type: 'number', list: true, formula: 'a b SUM' } }), existing({ type: 'number', list: true, formula: 'a b SUM' }), []],
    ['another data type', declared({ title: 'number' }), existing(), ['type is string, declared number']],
    ['a flag declared, not set', declared({ title: { type: 'string', search: true } }), existing(), ['search is false, declared true']],
    ['a flag set, not declared', declared({ title: 'string' }), existing({ mandatory: true }), ['mandatory is true, declared false']],
    ['another formula', declared({ title: { type: 'string', formula: 'a' } }), existing({ formula: 'b' }), ['formula is "b", declared "a"']],
    ['a reference query dropped', declared({ title: 'reference' }), existing({ type: 'reference', reference_query: '_type.reference=x' }), ['reference_query is "_type.reference=x", declared null']],
  ])('%s', (_, wanted, present, expected) => {
    expect(definitionDifferences(wanted, present)).toEqual(expected);
  });

  it('a mismatch names the type and each difference', () => {
    const error = new DefinitionMismatchError('book', { title: ['type is string, declared number'], pages: ['list is true, declared false'] });
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toBe('type "book" exists with other definitions: title: type is string, declared number; pages: list is true, declared false. Nothing was changed: change the definitions themselves, or declare them as they are.');
  });
});
