import { sharedTypeNames, typeNameTaken, typeNamed, type Entity } from '@entia/domain';
import { hexId, val } from './fixtures';

const ENTITY_TYPE = hexId(0xe0);
const type = (id: number, name?: string): Entity => ({
  _id: hexId(id),
  properties: { _type: [val('_type', { reference: ENTITY_TYPE })], ...(name === undefined ? {} : { name: [val('name', { string: name })] }) },
});

describe('typeNameTaken', () => {
  it.each<[string, Entity, Entity[], string | undefined]>([
    ['no other type of the name', type(1, 'book'), [], undefined],
    ['only itself (a rename to its own name, a rewrite)', type(1, 'book'), [type(1, 'book')], undefined],
    ['another type of the name', type(1, 'book'), [type(2, 'book')], hexId(2)],
    ['another type among several', type(1, 'book'), [type(1, 'book'), type(3, 'book')], hexId(3)],
    ['another name only (a looser match from the store)', type(1, 'book'), [type(2, 'Book')], undefined],
    ['a type without a name', type(1), [type(2)], undefined],
  ])('%s', (_, written, sameNamed, takenBy) => {
    const refusal = typeNameTaken(written, sameNamed);
    if (takenBy === undefined) {
      expect(refusal).toBeUndefined();
    } else {
      expect(refusal?.kind).toBe('conflict');
      expect(refusal?.message).toContain(takenBy);
      expect(refusal?.message).toContain('"book"');
    }
  });
});

describe('typeNamed', () => {
  it('asks for the types of exactly that name', () => {
    expect(typeNamed(ENTITY_TYPE, 'book')).toEqual([
      { property: '_type', field: 'reference', op: 'eq', value: ENTITY_TYPE },
      { property: 'name', field: 'string', op: 'eq', value: 'book' },
    ]);
  });
});

describe('sharedTypeNames', () => {
  it.each<[string, Entity[], { name: string; types: string[] }[]]>([
    ['none', [type(1, 'book'), type(2, 'author'), type(3)], []],
    ['one name twice', [type(2, 'book'), type(1, 'book'), type(3, 'author')], [{ name: 'book', types: [hexId(1), hexId(2)] }]],
    [
      'two names, in name order; case counts',
      [type(1, 'zine'), type(2, 'book'), type(3, 'zine'), type(4, 'book'), type(5, 'Book'), type(6, 'zine')],
      [
        { name: 'book', types: [hexId(2), hexId(4)] },
        { name: 'zine', types: [hexId(1), hexId(3), hexId(6)] },
      ],
    ],
  ])('%s', (_, types, expected) => {
    expect(sharedTypeNames(types)).toEqual(expected);
  });
});
