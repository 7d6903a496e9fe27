import {
  DomainError,
  MAX_GROUP_KEYS,
  checkQueryTypes,
  groupRows,
  groupedProperties,
  parseListQuery,
  parseReferenceQuery,
  type FoundGroup,
  type ListQuery,
  type RawQuery,
  type ValueType,
} from '@entia/domain';

/**
 * Grouped lists (`group=<property>.<field>[,…]`, SPEC §7a): what the parser takes and refuses
 * (always a 400 naming the parameter), what the store is asked to read, and how the groups it
 * found become rows: merged, ordered, paged.
 */

const BOOK = '5f1d7a0c9b1e8a0012345678';
const FOLDER = '5f1d7a0c9b1e8a0012345679';

/** The parameters `raw` is refused for (a DomainError `invalid`); fails when it is accepted. */
function refusedParameters(raw: RawQuery): string[] {
  try {
    parseListQuery(raw);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    expect(error.kind).toBe('invalid');
    return error.errors.map((e) => e.parameter!);
  }
  throw new Error(`accepted: ${JSON.stringify(raw)}`);
}

describe('parseListQuery: group', () => {
  it.each<[RawQuery, Partial<ListQuery>]>([
    [{ group: '_type.reference' }, { group: [{ property: '_type', field: 'reference' }] }],
    [{ group: 'author.reference,year.number' }, { group: [{ property: 'author', field: 'reference' }, { property: 'year', field: 'number' }] }],
    [{ group: 'title.string', 'year.number.gte': '1800' }, { group: [{ property: 'title', field: 'string' }] }],
    // Entu's client (R5): props names the grouped property.
    [{ '_parent.reference': BOOK, group: '_type.reference', props: '_type' }, { group: [{ property: '_type', field: 'reference' }], props: ['_type'] }],
    // sort names grouped keys, a grouped reference's label, descending with `-`; before or after `group` alike.
    [{ sort: '-_type.reference', group: '_type.reference' }, { sort: [{ property: '_type', field: 'reference', direction: -1 }] }],
    [{ group: '_type.reference', sort: '_type.string' }, { sort: [{ property: '_type', field: 'string', direction: 1 }] }],
    [{ group: 'done.boolean,_type.reference', sort: '-done.boolean' }, { sort: [{ property: 'done', field: 'boolean', direction: -1 }] }],
    // count=none is honoured (no count in the answer); limit and skip page the rows.
    [{ group: '_type.reference', count: 'none', limit: '5', skip: '10' }, { count: 'none', limit: 5, skip: 10 }],
  ])('%j is read as %j', (raw, expected) => {
    expect(parseListQuery(raw)).toMatchObject(expected);
  });

  it.each<[RawQuery, string]>([
    [{ group: '' }, 'group'],
    [{ group: ',' }, 'group'],
    [{ group: '_type' }, 'group'],
    [{ group: '_type.' }, 'group'],
    [{ group: '_type.reference.in' }, 'group'],
    [{ group: '_type.text' }, 'group'],
    [{ group: '_type.__proto__' }, 'group'],
    [{ group: '__proto__.string' }, 'group'],
    [{ group: '$where.string' }, 'group'],
    [{ group: '_type.$first' }, 'group'],
    [{ group: 'a.string,,b.string' }, 'group'],
    [{ group: 'title.string,title.string' }, 'group'],
    [{ group: Array.from({ length: MAX_GROUP_KEYS + 1 }, (_, n) => `p${n}.string`).join(',') }, 'group'],
    [{ group: 'x'.repeat(100_000) + '.string' }, 'group'],
    // Secrets are never grouped by: a group's values would show them.
    [{ group: '_api_key.string' }, 'group'],
    [{ group: '_type.reference', sort: 'title.string' }, 'sort'],
    [{ group: '_type.reference', sort: '_created.datetime' }, 'sort'],
    [{ group: 'title.string', sort: 'title.reference' }, 'sort'],
    [{ group: '_type.reference', sort: '_type.reference,-_type.reference' }, 'sort'],
    [{ group: '_type.reference', sort: '_count' }, 'sort'],
    [{ group: '_type.reference', after: 'abc' }, 'after'],
    [{ group: '_type.reference', props: 'name' }, 'props'],
    [{ group: '_type.reference', props: '_type,name.string' }, 'props'],
    [{ group: ['_type.reference', 'title.string'] }, 'group'],
  ])('%j is refused, naming %s', (raw, parameter) => {
    expect(refusedParameters(raw)).toContain(parameter);
  });

  it('a grouped list is not a filter: a reference_query and a change feed take no group', () => {
    expect(() => parseReferenceQuery(`group=_type.reference`)).toThrow(DomainError);
  });
});

describe('checkQueryTypes: group keys against the definitions', () => {
  const types = new Map<string, Set<ValueType>>([
    ['title', new Set<ValueType>(['string'])],
    ['year', new Set<ValueType>(['number'])],
    ['author', new Set<ValueType>(['reference'])],
  ]);
  const check = (group: string) => () => checkQueryTypes(parseListQuery({ group }), types);

  it.each(['title.string', 'year.number', 'author.reference', '_type.reference', '_created.datetime', '_parent.reference'])('%s is a field its property has', (group) => {
    expect(check(group)).not.toThrow();
  });

  it.each(['year.string', 'title.number', 'nothing.string', 'constructor.reference', 'toString.string'])('%s is refused naming group', (group) => {
    try {
      check(group)();
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).errors.map((e) => e.parameter)).toEqual(['group']);
    }
  });
});

describe('groupedProperties: what the store reads of each grouped property', () => {
  it.each<[string, ReturnType<typeof groupedProperties>]>([
    ['_type.reference', [{ property: '_type', fields: ['reference', 'string'] }]],
    ['_type.string', [{ property: '_type', fields: ['string'] }]],
    ['_type.string,_type.reference', [{ property: '_type', fields: ['string', 'reference'] }]],
    ['year.number,_type.reference', [{ property: 'year', fields: ['number'] }, { property: '_type', fields: ['reference', 'string'] }]],
  ])('%s', (group, expected) => {
    expect(groupedProperties(parseListQuery({ group }).group!)).toEqual(expected);
  });
});

describe('groupRows', () => {
  const rows = (found: FoundGroup[], raw: RawQuery) => groupRows(found, parseListQuery(raw));
  const type = (reference: string, string?: string) => ({ reference, ...(string === undefined ? {} : { string }) });

  it('one row per group, its values named by their property, and _count; ordered by the keys ascending; count is every row', () => {
    const found: FoundGroup[] = [
      { values: [[type(FOLDER, 'folder')]], count: 2 },
      { values: [[type(BOOK, 'book')]], count: 5 },
    ];
    expect(rows(found, { group: '_type.reference' })).toEqual({
      rows: [
        { _type: [{ type: '_type', reference: BOOK, string: 'book' }], _count: 5 },
        { _type: [{ type: '_type', reference: FOLDER, string: 'folder' }], _count: 2 },
      ],
      count: 2,
    });
  });

  it('groups differing only in a label (one being refreshed) or in field order are one row, showing the largest group\'s label', () => {
    const found: FoundGroup[] = [
      { values: [[type(BOOK, 'old name')]], count: 1 },
      { values: [[type(BOOK, 'book')]], count: 3 },
      { values: [[{ string: 'book', reference: BOOK }]], count: 2 },
      { values: [[type(BOOK)]], count: 1 },
    ];
    expect(rows(found, { group: '_type.reference' })).toEqual({ rows: [{ _type: [{ type: '_type', reference: BOOK, string: 'book' }], _count: 7 }], count: 1 });
  });

  it('entities without the property are a row without it, first ascending; a value list is a key of its own, in its order', () => {
    const found: FoundGroup[] = [
      { values: [[type(BOOK, 'b'), type(FOLDER, 'f')]], count: 1 },
      { values: [[]], count: 4 },
      { values: [[type(FOLDER, 'f'), type(BOOK, 'b')]], count: 1 },
      { values: [[type(BOOK, 'b')]], count: 2 },
    ];
    const { rows: shown, count } = rows(found, { group: '_type.reference' });
    expect(count).toBe(4);
    expect(shown.map((row) => [(row._type as { reference: string }[] | undefined)?.map((v) => v.reference.slice(-1)), row._count])).toEqual([
      [undefined, 4],
      [['8'], 2],
      [['8', '9'], 1],
      [['9', '8'], 1],
    ]);
  });

  it('sorts by a key descending, by a reference\'s label (case and accents aside, as lists sort strings), then by the other keys', () => {
    const found: FoundGroup[] = [
      { values: [[type(BOOK, 'zebra')], [{ number: 1 }]], count: 1 },
      { values: [[type(FOLDER, 'Émile')], [{ number: 2 }]], count: 1 },
      { values: [[type(FOLDER, 'Émile')], [{ number: 1 }]], count: 1 },
    ];
    const order = (raw: RawQuery) => rows(found, { group: '_type.reference,n.number', ...raw }).rows.map((row) => `${(row._type as { string: string }[])[0]!.string}/${(row.n as { number: number }[])[0]!.number}`);
    expect(order({})).toEqual(['zebra/1', 'Émile/1', 'Émile/2']);
    expect(order({ sort: '_type.string' })).toEqual(['Émile/1', 'Émile/2', 'zebra/1']);
    expect(order({ sort: '-n.number' })).toEqual(['Émile/2', 'zebra/1', 'Émile/1']);
    expect(order({ sort: '-_type.reference,-n.number' })).toEqual(['Émile/2', 'Émile/1', 'zebra/1']);
  });

  it('numbers sort as numbers; skip and limit page the rows, count stays every row', () => {
    const found: FoundGroup[] = [10, 9, 100, 1].map((number) => ({ values: [[{ number }]], count: number }));
    const page = (raw: RawQuery) => rows(found, { group: 'n.number', ...raw });
    expect(page({}).rows.map((row) => row._count)).toEqual([1, 9, 10, 100]);
    expect(page({ skip: '1', limit: '2' })).toEqual({ rows: [{ n: [{ type: 'n', number: 9 }], _count: 9 }, { n: [{ type: 'n', number: 10 }], _count: 10 }], count: 4 });
    expect(page({ limit: '0' })).toEqual({ rows: [], count: 4 });
    expect(page({ skip: '10' })).toEqual({ rows: [], count: 4 });
  });

  it('two keys of one property: both fields on each value; a value lacking the grouped field is not shown', () => {
    const found: FoundGroup[] = [{ values: [[{ reference: BOOK, string: 'book' }, { reference: FOLDER }]], count: 2 }];
    expect(rows(found, { group: '_type.reference,_type.string' }).rows).toEqual([{ _type: [{ type: '_type', reference: BOOK, string: 'book' }, { type: '_type', reference: FOLDER }], _count: 2 }]);
    expect(rows([{ values: [[{ string: 'book' }, {}]], count: 2 }], { group: '_type.string' }).rows).toEqual([{ _type: [{ type: '_type', string: 'book' }], _count: 2 }]);
  });

  it('is deterministic: the same groups in any order give the same rows', () => {
    const found: FoundGroup[] = [
      { values: [[type(BOOK, 'a')]], count: 2 },
      { values: [[type(BOOK, 'b')]], count: 2 },
      { values: [[type(FOLDER)]], count: 1 },
      { values: [[]], count: 1 },
    ];
    const expected = rows(found, { group: '_type.reference' });
    expect(rows([...found].reverse(), { group: '_type.reference' })).toEqual(expected);
    expect(expected.rows[1]).toEqual({ _type: [{ type: '_type', reference: BOOK, string: 'a' }], _count: 4 });
  });
});
