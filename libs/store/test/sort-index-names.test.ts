import { ENTITY_INDEXES, SORT_INDEX_CAP, compileSort, servesSort, sortIndexOf } from '@entia/store';

const key = (text: string) => ({ property: text.replace(/^-/, '').split('.')[0]!, field: text.split('.')[1] as 'string', direction: text.startsWith('-') ? (-1 as const) : (1 as const) });
const indexOf = (...keys: string[]) => sortIndexOf(compileSort(keys.map(key)) as Record<string, number>);

describe('the index a sort gets (sortIndexOf)', () => {
  it('walks the sort forwards when its first key ascends, backwards when it descends', () => {
    expect(indexOf('title.string')!.key).toEqual({ '__sort.title.string.min': 1, _id: 1 });
    expect(indexOf('-title.string')!.key).toEqual({ '__sort.title.string.max': 1, _id: 1 });
    expect(indexOf('-year.number', 'title.string')!.key).toEqual({ '__sort.year.number.max': 1, '__sort.title.string.min': -1, _id: 1 });
    for (const sort of [['title.string'], ['-title.string'], ['-year.number', 'title.string'], ['a.number', '-b.date', 'c.string']]) {
      const compiled = compileSort(sort.map(key)) as Record<string, number>;
      expect([sort, servesSort(sortIndexOf(compiled)!.key, compiled)]).toEqual([sort, true]);
    }
  });

  it('is named by a hash: bounded and the same for the same key, whatever the property names', () => {
    const long = 'p'.repeat(64);
    const named = indexOf(`${long}.string`, `-${'q'.repeat(64)}.number`, `_${'r'.repeat(64)}.date`)!;
    expect(Object.keys(named.key)).toHaveLength(4);
    expect(named.name).toMatch(/^sort_[0-9a-f]{20}$/);
    expect(indexOf('title.string')!.name).toBe(indexOf('title.string')!.name);
    expect(indexOf('title.string')!.name).not.toBe(indexOf('-title.string')!.name);
  });

  it('is none for fields that are not sort keys', () => {
    const refused: Record<string, number>[] = [{ $where: 1 }, { '__sort.__proto__.string.min': 1 }, { '__sort.a.b.string.min': 1 }, { '__read': 1 }, { 'title.string': 1 }, { '__sort.title.string.min': 2 }, {}];
    for (const fields of refused) {
      expect([fields, sortIndexOf(fields)]).toEqual([fields, undefined]);
    }
  });

  it('the fixed indexes give the `_created` sorts; a property sort is not mistaken for one of them', () => {
    const given = (...keys: string[]) => ENTITY_INDEXES.some((index) => servesSort(index.key, compileSort(keys.map(key)) as Record<string, number>));
    expect([given('_created.datetime'), given('-_created.datetime'), given('title.string'), given('_created.datetime', 'title.string')]).toEqual([true, true, false, false]);
    expect(SORT_INDEX_CAP + ENTITY_INDEXES.length + 1).toBeLessThan(64);
  });
});
