import { unsearchableWarning, type SearchScope } from '@entia/domain';

const book = (...searchable: string[]): SearchScope => ({ name: 'book', searchable: new Set(searchable) });
const memo = (...searchable: string[]): SearchScope => ({ name: 'memo', searchable: new Set(searchable) });

describe('unsearchableWarning', () => {
  it.each<[string, string[], SearchScope[], boolean, string | undefined]>([
    ['no q: nothing to say', [], [book()], true, undefined],
    ['a searchable property in the named type', ['dune'], [book('title')], true, undefined],
    ['one of two named types searchable', ['dune'], [book(), memo('text')], true, undefined],
    ['the named type has none', ['dune'], [book()], true, 'q matches nothing here: type "book" has no searchable property. Mark a definition "search": true to make q find its values.'],
    ['two named types have none', ['dune'], [book(), memo()], true, 'q matches nothing here: types "book", "memo" have no searchable property. Mark a definition "search": true to make q find its values.'],
    ['no type filter, none in the database', ['dune'], [book(), memo()], false, 'q matches nothing here: no type of this database has a searchable property. Mark a definition "search": true to make q find its values.'],
    ['no type filter, one searchable somewhere', ['dune'], [book(), memo('text')], false, undefined],
    ['a type without a name', ['dune'], [{ name: undefined, searchable: new Set() }], true, 'q matches nothing here: type "(unnamed)" has no searchable property. Mark a definition "search": true to make q find its values.'],
  ])('%s', (_, terms, types, named, expected) => {
    expect(unsearchableWarning(terms, types, named)).toBe(expected);
  });
});
