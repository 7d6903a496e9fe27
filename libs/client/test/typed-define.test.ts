import { definitionObjects } from '../src/typed/define';
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
