import {
  DomainError,
  MAX_CURSOR_LENGTH,
  decodeCursor,
  encodeCursor,
  parseListQuery,
  parseReferenceQuery,
  positionOf,
  sortKeys,
  sortSpec,
  type CursorPosition,
  type RawQuery,
  type SortKey,
  type Value,
} from '@entia/domain';

/**
 * Cursors of GET /api/{db}/entity (`after`, issue 21): what a page's `next` holds, that it reads
 * back exactly, and that anything else — malformed, forged values, another sort, too long — is a
 * 400 naming `after`, never a crash.
 */

const ID = '5f1d7a0c9b1e8a0012345678';
const sortOf = (text: string): SortKey[] => parseListQuery(text === '' ? {} : { sort: text }).sort;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const cursorJson = (value: unknown) => b64(JSON.stringify(value));

/** The DomainError `run` throws; fails the test when it returns or throws anything else. */
function refusal(run: () => unknown): DomainError {
  try {
    const result = run();
    throw new Error(`expected a refusal, but it was accepted: ${JSON.stringify(result)}`);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

function expectRefused(run: () => unknown, parameter: string): void {
  const error = refusal(run);
  expect(error.kind).toBe('invalid');
  expect(error.errors.map((e) => e.parameter)).toContain(parameter);
}

describe('encodeCursor / decodeCursor: a position reads back exactly', () => {
  it.each<[string, CursorPosition]>([
    ['', { values: [], id: ID }],
    ['title.string', { values: ['dune'], id: ID }],
    ['title.string', { values: [null], id: ID }],
    ['-pages.number', { values: [-1.5e300], id: ID }],
    ['-pages.number,title.string', { values: [0, '$gt'], id: ID }],
    ['day.date', { values: ['2024-02-29'], id: ID }],
    ['-at.datetime', { values: ['2024-01-02T03:04:05.000Z'], id: ID }],
    ['f.filename,-f.filesize,f.filetype', { values: ['report.pdf', 1024, 'application/pdf'], id: ID }],
    ['title.string', { values: ['{"$ne":null} 日本語 ✓'], id: ID }],
  ])('sort %j: %j', (sort, position) => {
    const keys = sortOf(sort);
    const cursor = encodeCursor(keys, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, keys)).toEqual(position);
    expect(parseListQuery({ ...(sort === '' ? {} : { sort }), after: cursor }).after).toEqual(position);
  });

  it('holds the sort it was made for, as written', () => {
    expect(sortSpec(sortOf('-pages.number,title.string'))).toBe('-pages.number,title.string');
    expect(JSON.parse(Buffer.from(encodeCursor(sortOf('-pages.number'), { values: [3], id: ID }), 'base64url').toString())).toEqual({
      s: '-pages.number',
      k: [3],
      i: ID,
    });
  });

  it(`the longest sort values a page can end with fit under the cap (${MAX_CURSOR_LENGTH} characters)`, () => {
    // U+FDFA folds (NFKD) into 18 characters, 33 bytes of UTF-8: the longest a 256-character string key can become.
    const value: Value = { _id: ID, type: 'a', string: '\uFDFA'.repeat(300), created: { at: '2024-01-01T00:00:00.000Z', by: ID } };
    const keys = sortKeys(Object.assign(Object.create(null), Object.fromEntries('abcdefgh'.split('').map((p) => [p, [value]]))));
    const sort = sortOf('a.string,b.string,c.string,d.string,e.string,f.string,g.string,h.string');
    const cursor = encodeCursor(sort, positionOf(keys, sort, ID));
    expect(cursor.length).toBeGreaterThan(80_000);
    expect(cursor.length).toBeLessThanOrEqual(MAX_CURSOR_LENGTH);
    expect(decodeCursor(cursor, sort).values).toHaveLength(8);
  });
});

describe('positionOf: the sort values of an entity', () => {
  const value = (fields: Partial<Value>): Value => ({ _id: ID, created: { at: '2024-01-01T00:00:00.000Z', by: ID }, ...fields }) as Value;

  it('reads the smallest value ascending, the largest descending, null when there is none', () => {
    const keys = sortKeys(Object.assign(Object.create(null), { pages: [value({ number: 3 }), value({ number: 12 })], title: [value({ string: 'Émile' })] }));
    expect(positionOf(keys, sortOf('pages.number,-pages.number,title.string,note.string'), ID)).toEqual({ values: [3, 12, 'emile', null], id: ID });
  });

  it('names like Object.prototype members are properties, not members', () => {
    const keys = sortKeys(Object.assign(Object.create(null), { constructor: [value({ number: 1 })] }));
    expect(positionOf(keys, sortOf('constructor.number,toString.string,valueOf.number'), ID)).toEqual({ values: [1, null, null], id: ID });
    expect(positionOf({}, sortOf('constructor.string,hasOwnProperty.number'), ID)).toEqual({ values: [null, null], id: ID });
    expect(positionOf(undefined, sortOf('x.number'), ID)).toEqual({ values: [null], id: ID });
  });
});

describe('decodeCursor: anything but a cursor for this sort is a 400 naming after', () => {
  const TITLE = sortOf('title.string');
  const good = encodeCursor(TITLE, { values: ['dune'], id: ID });

  it.each<[string, string, SortKey[]]>([
    ['empty', '', TITLE],
    ['garbage', '!!not a cursor!!', TITLE],
    ['padding', `${good}==`, TITLE],
    ['not base64url', good.replace(/[A-Za-z]/, '+'), TITLE],
    ['non-canonical base64url', `${b64('{"s":"title.string","k":["dune"],"i":"' + ID + '"}')}A`, TITLE],
    ['base64 of non-JSON', b64('hello, world'), TITLE],
    ['base64 of invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('base64url'), TITLE],
    ['a JSON array', cursorJson(['title.string', ['dune'], ID]), TITLE],
    ['a JSON string', cursorJson('dune'), TITLE],
    ['null', cursorJson(null), TITLE],
    ['a key missing', cursorJson({ s: 'title.string', k: ['dune'] }), TITLE],
    ['a key more', cursorJson({ s: 'title.string', k: ['dune'], i: ID, x: 1 }), TITLE],
    ['__proto__ as a key', b64(`{"s":"title.string","k":["dune"],"i":"${ID}","__proto__":{"polluted":1}}`), TITLE],
    ['__proto__ instead of a key', b64(`{"s":"title.string","__proto__":["dune"],"i":"${ID}"}`), TITLE],
    ['an object as a value', cursorJson({ s: 'title.string', k: [{ $gt: 1 }], i: ID }), TITLE],
    ['__proto__ inside a value', b64(`{"s":"title.string","k":[{"__proto__":{"x":1}}],"i":"${ID}"}`), TITLE],
    ['an array as a value', cursorJson({ s: 'title.string', k: [['dune']], i: ID }), TITLE],
    ['a boolean as a value', cursorJson({ s: 'title.string', k: [true], i: ID }), TITLE],
    ['a number for a string key', cursorJson({ s: 'title.string', k: [5], i: ID }), TITLE],
    ['a string for a number key', cursorJson({ s: 'pages.number', k: ['5'], i: ID }), sortOf('pages.number')],
    ['a date that is none', cursorJson({ s: 'day.date', k: ['2023-02-29'], i: ID }), sortOf('day.date')],
    ['a datetime not normalised', cursorJson({ s: 'at.datetime', k: ['2024-01-02T05:04:05+02:00'], i: ID }), sortOf('at.datetime')],
    ['too few values', cursorJson({ s: 'title.string', k: [], i: ID }), TITLE],
    ['too many values', cursorJson({ s: 'title.string', k: ['a', 'b'], i: ID }), TITLE],
    ['values not an array', cursorJson({ s: 'title.string', k: 'dune', i: ID }), TITLE],
    ['an id that is none', cursorJson({ s: 'title.string', k: ['dune'], i: 'x' }), TITLE],
    ['an id in capitals', cursorJson({ s: 'title.string', k: ['dune'], i: ID.toUpperCase() }), TITLE],
    ['an id as an object', cursorJson({ s: 'title.string', k: ['dune'], i: { $oid: ID } }), TITLE],
    ['the sort as an object', cursorJson({ s: { $ne: null }, k: ['dune'], i: ID }), TITLE],
    ['made for another sort', good, sortOf('-title.string')],
    ['made for another field', good, sortOf('title.filename')],
    ['made for the default order', encodeCursor([], { values: [], id: ID }), TITLE],
    ['made for a sort, used without', good, []],
    ['too long', 'A'.repeat(MAX_CURSOR_LENGTH + 1), TITLE],
  ])('%s', (_, cursor, sort) => {
    expectRefused(() => decodeCursor(cursor, sort), 'after');
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

describe('parseListQuery: count and after', () => {
  it('count=exact is the default, left out; count=none is kept', () => {
    expect(parseListQuery({}).count).toBeUndefined();
    expect(parseListQuery({ count: 'exact' })).toEqual(parseListQuery({}));
    expect(parseListQuery({ count: 'none' }).count).toBe('none');
  });

  it.each<[string, RawQuery, string]>([
    ['count=maybe', { count: 'maybe' }, 'count'],
    ['count=EXACT', { count: 'EXACT' }, 'count'],
    ['count=""', { count: '' }, 'count'],
    ['count given twice', { count: ['none', 'none'] }, 'count'],
    ['after given twice', { after: ['a', 'b'] }, 'after'],
    ['after with skip', { after: encodeCursor([], { values: [], id: ID }), skip: '5' }, 'after'],
    ['after for another sort than the query', { after: encodeCursor(sortOf('a.string'), { values: ['x'], id: ID }), sort: 'b.string' }, 'after'],
  ])('%s is refused', (_, raw, parameter) => {
    expectRefused(() => parseListQuery(raw), parameter);
  });

  it('after with skip=0 is fine, whatever the order of the parameters', () => {
    const after = encodeCursor(sortOf('-n.number'), { values: [null], id: ID });
    expect(parseListQuery({ after, skip: '0', sort: '-n.number' }).after).toEqual({ values: [null], id: ID });
  });

  it('reference_query takes neither', () => {
    expectRefused(() => parseReferenceQuery('count=none'), 'count');
    expectRefused(() => parseReferenceQuery(`after=${encodeCursor([], { values: [], id: ID })}`), 'after');
  });
});
