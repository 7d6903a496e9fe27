import {
  DEFAULT_LIMIT,
  DomainError,
  MAX_IN,
  MAX_PREFIX,
  MAX_REGEX,
  MAX_TERMS,
  checkDefinition,
  checkQueryTypes,
  encodeCursor,
  parseListQuery,
  parseReferenceQuery,
  prefixes,
  rawQueryOf,
  searchTerms,
  sortKeys,
  words,
  type FilterField,
  type Operator,
  type Properties,
  type RawQuery,
  type Value,
  type ValueType,
} from '@entia/domain';

/**
 * The query language of GET /api/{db}/entity (SPEC §7, interface §4.2) as the domain parses it:
 * which keys and values it takes, what it refuses (always a DomainError 'invalid' naming the
 * parameter), how `q` is tokenised, and the sort keys and type checks the store relies on.
 */

const ID = '5f1d7a0c9b1e8a0012345678';
const ID2 = '5f1d7a0c9b1e8a0012345679';

/** The DomainError `run` throws; fails the test when it returns or throws anything else. */
function refusal(run: () => unknown): DomainError {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error(`expected a DomainError, but it was accepted: ${JSON.stringify(result)}`);
}

/** `raw` is refused as invalid, with an error naming `parameter`. */
function expectRefused(raw: RawQuery, parameter: string): DomainError {
  const error = refusal(() => parseListQuery(raw));
  expect(error.kind).toBe('invalid');
  expect(error.errors.map((e) => e.parameter)).toContain(parameter);
  for (const e of error.errors) expect(typeof e.message).toBe('string');
  return error;
}

const FIELDS = ['string', 'number', 'boolean', 'date', 'datetime', 'reference', 'filename', 'filesize', 'filetype'] as const;
const OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'regex'] as const;

/** SPEC §7's operator table; file properties filter on filename/filetype as strings, filesize as a number. */
const ALLOWED: Record<(typeof FIELDS)[number], readonly Operator[]> = {
  string: ['eq', 'ne', 'regex', 'in', 'exists'],
  filename: ['eq', 'ne', 'regex', 'in', 'exists'],
  filetype: ['eq', 'ne', 'regex', 'in', 'exists'],
  reference: ['eq', 'ne', 'in', 'exists'],
  number: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  filesize: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  date: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  datetime: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
  boolean: ['eq', 'exists'],
};

/** Two well-formed values per field. */
const SAMPLES: Record<(typeof FIELDS)[number], [string, string]> = {
  string: ['abc', 'déf ghi'],
  filename: ['report.pdf', 'a b.txt'],
  filetype: ['application/pdf', 'text/plain'],
  reference: [ID, ID2],
  number: ['5', '-1.5'],
  filesize: ['1024', '2048'],
  date: ['2024-02-29', '1999-12-31'],
  datetime: ['2024-01-02T03:04:05Z', '2024-01-02T05:04:05.123+02:00'],
  boolean: ['true', 'false'],
};

/** A value that is well-formed for `op` on `field` (so only the operator decides). */
function valueFor(field: (typeof FIELDS)[number], op: Operator): string {
  if (op === 'exists') return 'true';
  if (op === 'in') return SAMPLES[field].join(',');
  if (op === 'regex') return '/ab+c/i';
  return SAMPLES[field][0];
}

const keyOf = (property: string, field: string, op: string) => (op === 'eq' ? `${property}.${field}` : `${property}.${field}.${op}`);

describe('parseListQuery: operator × field (SPEC §7 table)', () => {
  const cases = FIELDS.flatMap((field) => OPS.map((op) => [field, op, ALLOWED[field].includes(op)] as const));

  it.each(cases)('%s.%s accepted: %s', (field, op, allowed) => {
    const key = keyOf('p', field, op);
    const raw = { [key]: valueFor(field, op) };
    if (allowed) {
      const query = parseListQuery(raw);
      expect(query.filters).toEqual([expect.objectContaining({ property: 'p', field, op })]);
    } else {
      expectRefused(raw, key);
    }
  });

  it('every SPEC operator of every field is covered by the table above', () => {
    expect(cases.filter(([, , allowed]) => allowed)).toHaveLength(5 * 3 + 4 + 8 * 4 + 2);
  });
});

describe('parseListQuery: values are typed for their field', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['n.number', '5', { op: 'eq', value: 5 }],
    ['n.number', '-1.5e3', { op: 'eq', value: -1500 }],
    ['n.number', '0', { op: 'eq', value: 0 }],
    ['n.number.gt', '2.25', { op: 'gt', value: 2.25 }],
    ['f.filesize.lte', '1024', { op: 'lte', value: 1024 }],
    ['b.boolean', 'false', { op: 'eq', value: false }],
    ['b.boolean', 'true', { op: 'eq', value: true }],
    ['d.date', '2024-02-29', { op: 'eq', value: '2024-02-29' }],
    ['t.datetime', '2024-01-02T05:04:05+02:00', { op: 'eq', value: '2024-01-02T03:04:05.000Z' }],
    ['t.datetime.gte', '2024-01-02T03:04Z', { op: 'gte', value: '2024-01-02T03:04:00.000Z' }],
    ['r.reference', ID, { op: 'eq', value: ID }],
    ['r.reference.ne', ID, { op: 'ne', value: ID }],
    ['s.string', 'Crème Brûlée', { op: 'eq', value: 'Crème Brûlée' }],
    ['s.string', '$where', { op: 'eq', value: '$where' }],
    ['s.string', '{"$gt":""}', { op: 'eq', value: '{"$gt":""}' }],
    ['s.string.exists', 'false', { op: 'exists', value: false }],
    ['n.number.exists', 'true', { op: 'exists', value: true }],
    ['n.number.in', '1,2.5,-3', { op: 'in', values: [1, 2.5, -3] }],
    ['r.reference.in', `${ID},${ID2}`, { op: 'in', values: [ID, ID2] }],
    ['t.datetime.in', '2024-01-02T03:04:05Z,2024-01-02T05:04:05+02:00', { op: 'in', values: ['2024-01-02T03:04:05.000Z', '2024-01-02T03:04:05.000Z'] }],
    ['s.string.in', 'a,b c,$ne', { op: 'in', values: ['a', 'b c', '$ne'] }],
    ['s.string.regex', '/ab+c/i', { op: 'regex', pattern: 'ab+c', flags: 'i' }],
    ['s.string.regex', '/a/b/', { op: 'regex', pattern: 'a/b', flags: '' }],
    ['s.string.regex', '/^x$/imsu', { op: 'regex', pattern: '^x$', flags: 'imsu' }],
    ['f.filename.regex', '/\\.pdf$/', { op: 'regex', pattern: '\\.pdf$', flags: '' }],
    ['_created.datetime.lt', '2030-01-01T00:00:00Z', { op: 'lt', value: '2030-01-01T00:00:00.000Z' }],
    ['_type.reference', ID, { op: 'eq', value: ID }],
  ])('%s=%s', (key, text, expected) => {
    const [property, field] = key.split('.') as [string, FilterField];
    expect(parseListQuery({ [key]: text }).filters).toEqual([{ property, field, ...expected }]);
  });

  it('several filters are all kept (combined with AND by the store)', () => {
    const query = parseListQuery({ 'a.string': 'x', 'b.number.gt': '1', 'c.boolean': 'true' });
    expect(query.filters.map((f) => `${f.property}.${f.field}.${f.op}`).sort()).toEqual(['a.string.eq', 'b.number.gt', 'c.boolean.eq']);
  });

  it('defaults: limit 100, skip 0, no sort, no terms, no props', () => {
    expect(parseListQuery({})).toEqual({ filters: [], sort: [], limit: DEFAULT_LIMIT, skip: 0, terms: [] });
    expect(DEFAULT_LIMIT).toBe(100);
  });
});

describe('parseListQuery: malformed keys are refused, naming the key', () => {
  it.each([
    'title',
    'title.text',
    'title.str',
    'title.STRING',
    'title.string.like',
    'title.string.EQ',
    'title.string.',
    'title.string.regex.i',
    'title..string',
    '.string',
    '1title.string',
    'ti-tle.string',
    `${'a'.repeat(65)}.string`,
    '__read.string',
    '__q.string',
    '__proto__.string',
    '$where',
    'title.$ne.string',
    'title.string.$ne',
    'title[$ne]',
    'title.string[$gt]',
    // operators not valid for the type
    'title.string.gt',
    'title.string.lte',
    'flag.boolean.ne',
    'flag.boolean.in',
    'flag.boolean.gt',
    'ref.reference.gt',
    'ref.reference.regex',
    'n.number.regex',
    'd.date.regex',
    'f.filesize.regex',
    'f.filename.gt',
  ])('%s', (key) => {
    expectRefused({ [key]: key.includes('boolean') ? 'true' : key.includes('reference') ? ID : '1' }, key);
  });

  it(`a property name of 64 characters is fine, 65 is not`, () => {
    expect(parseListQuery({ [`${'a'.repeat(64)}.string`]: 'x' }).filters).toHaveLength(1);
    expectRefused({ [`${'a'.repeat(65)}.string`]: 'x' }, `${'a'.repeat(65)}.string`);
  });
});

describe('parseListQuery: malformed values are refused, naming the key (never a silent string match)', () => {
  it.each<[string, string]>([
    ['n.number', ''],
    ['n.number', ' '],
    ['n.number', 'abc'],
    ['n.number', '5px'],
    ['n.number', '1,5'],
    ['n.number', 'NaN'],
    ['n.number', 'Infinity'],
    ['n.number', '-Infinity'],
    ['n.number', '1e999'],
    ['n.number.gt', 'ten'],
    ['f.filesize', 'big'],
    ['b.boolean', 'TRUE'],
    ['b.boolean', 'yes'],
    ['b.boolean', '1'],
    ['b.boolean', ''],
    ['d.date', '2024-02-30'],
    ['d.date', '2023-02-29'],
    ['d.date', '2024-13-01'],
    ['d.date', '2024-1-2'],
    ['d.date', '24-01-02'],
    ['d.date', '2024-01-02T00:00:00Z'],
    ['d.date.gt', 'yesterday'],
    ['d.date', ''],
    ['t.datetime', '2024-01-02'],
    ['t.datetime', '2024-01-02T03:04:05'],
    ['t.datetime', '2024-01-02T25:00:00Z'],
    ['t.datetime', '2024-02-30T00:00:00Z'],
    ['t.datetime', 'now'],
    ['t.datetime', '1700000000.5'],
    ['t.datetime.lt', ''],
    ['r.reference', 'abc'],
    ['r.reference', ''],
    ['r.reference', `${ID}0`],
    ['r.reference', 'zzzzzzzzzzzzzzzzzzzzzzzz'],
    ['r.reference', `{"$oid":"${ID}"}`],
    ['s.string.exists', 'yes'],
    ['s.string.exists', '1'],
    ['s.string.exists', ''],
    ['n.number.exists', 'TRUE'],
    ['n.number.in', '1,,2'],
    ['n.number.in', '1,x'],
    ['n.number.in', ''],
    ['r.reference.in', `${ID},abc`],
    ['d.date.in', '2024-01-01,tomorrow'],
    ['b.boolean.exists', 'maybe'],
  ])('%s=%j', (key, text) => {
    expectRefused({ [key]: text }, key);
  });

  // SPEC §3: a number is a finite JSON number. Hexadecimal, binary and octal literals are not.
  it.each(['0x10', '0b11', '0o7'])('n.number=%s is not a JSON number', (text) => {
    expectRefused({ 'n.number': text }, 'n.number');
  });

  it('every error of one query is reported at once', () => {
    const error = refusal(() => parseListQuery({ limit: '-1', 'n.number': 'x', 'title.string.like': 'y', sort: 'title' }));
    expect(error.errors.map((e) => e.parameter).sort()).toEqual(['limit', 'n.number', 'sort', 'title.string.like']);
  });
});

describe('parseListQuery: in takes at most 1000 items', () => {
  const numbers = (n: number) => Array.from({ length: n }, (_, i) => String(i)).join(',');

  it(`${MAX_IN} items are fine`, () => {
    expect(MAX_IN).toBe(1000);
    const [filter] = parseListQuery({ 'n.number.in': numbers(1000) }).filters;
    expect(filter).toMatchObject({ op: 'in' });
    expect((filter as { values: unknown[] }).values).toHaveLength(1000);
  });

  it.each([1001, 10_000])('%d items are refused', (n) => {
    expectRefused({ 'n.number.in': numbers(n) }, 'n.number.in');
    expectRefused({ 's.string.in': ','.repeat(n - 1) }, 's.string.in');
  });

  it('a single item is fine', () => {
    expect(parseListQuery({ 'n.number.in': '7' }).filters).toEqual([{ property: 'n', field: 'number', op: 'in', values: [7] }]);
  });
});

describe('parseListQuery: regex=/pattern/flags', () => {
  it(`a pattern of ${MAX_REGEX} characters is fine, one more is not`, () => {
    expect(MAX_REGEX).toBe(512);
    expect(parseListQuery({ 's.string.regex': `/${'a'.repeat(512)}/` }).filters).toHaveLength(1);
    expectRefused({ 's.string.regex': `/${'a'.repeat(513)}/` }, 's.string.regex');
  });

  it.each(['', 'i', 'm', 's', 'u', 'im', 'imsu', 'usmi', 'si'])('flags %j are accepted', (flags) => {
    expect(parseListQuery({ 's.string.regex': `/x/${flags}` }).filters).toEqual([
      { property: 's', field: 'string', op: 'regex', pattern: 'x', flags },
    ]);
  });

  it.each(['g', 'y', 'x', 'd', 'ii', 'imsui', 'I', 'iM', ' i', 'i '])('flags %j are refused', (flags) => {
    expectRefused({ 's.string.regex': `/x/${flags}` }, 's.string.regex');
  });

  it.each([
    'abc',
    '/abc',
    'abc/',
    '//',
    '//i',
    '/',
    '',
    // invalid patterns
    '/[/',
    '/(/',
    '/)/',
    '/*/',
    '/a**/',
    '/a{2,1}/',
    '/[z-a]/',
    '/(?P<n>x)/',
    // lookaround and backreferences: RE2 (FerretDB) cannot run them, PCRE only by backtracking
    '/(?=a)/',
    '/a(?!b)/',
    '/(?<=a)b/',
    '/(?<!a)b/',
    '/(a)\\1/',
    '/(a)(b)\\2/',
    '/(?<x>a)\\k<x>/',
    // both engines refuse \u escapes (PCRE spells them \x{…}); JavaScript would read them
    '/\\u0041/',
  ])('%j is refused', (text) => {
    expectRefused({ 's.string.regex': text }, 's.string.regex');
  });

  it.each(['/(a+)+$/', '/(a|a)*b$/', '/^[\\p{L} ]+$/u', '/a\\/b/', '/\\d{3}-\\d{4}/', '/[/]/'])('%j is a valid pattern', (text) => {
    expect(parseListQuery({ 's.string.regex': text }).filters).toHaveLength(1);
  });
});

describe('parseListQuery: limit, skip', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    ['7', 7],
    ['1000', 1000],
  ])('limit=%s', (text, limit) => {
    expect(parseListQuery({ limit: text }).limit).toBe(limit);
  });

  it.each(['-1', '1001', '1.5', '1e2', 'abc', '', ' 5', '5 ', '+5', '0x10', '99999999999', '10000000000000000000000'])('limit=%j is refused', (text) => {
    expectRefused({ limit: text }, 'limit');
  });

  it.each([
    ['0', 0],
    ['7', 7],
    ['100000', 100000],
  ])('skip=%s', (text, skip) => {
    expect(parseListQuery({ skip: text }).skip).toBe(skip);
  });

  it.each(['-1', '-0', '1.5', 'x', '', '1e3', ' 1'])('skip=%j is refused', (text) => {
    expectRefused({ skip: text }, 'skip');
  });
});

describe('parseListQuery: a parameter given twice is refused', () => {
  it.each(['limit', 'skip', 'sort', 'q', 'props', 'title.string', 'n.number.gt', 's.string.regex'])('%s', (key) => {
    expectRefused({ [key]: ['1', '2'] }, key);
  });

  it('rawQueryOf turns repeated keys into arrays, which the parser refuses', () => {
    expect(rawQueryOf('limit=1&limit=2&a.string=x')).toEqual({ limit: ['1', '2'], 'a.string': 'x' });
    expectRefused(rawQueryOf('title.string=a&title.string=b'), 'title.string');
    expectRefused(rawQueryOf('title.string=a&title.string=a'), 'title.string');
  });

  // Keys that are Object.prototype members: each is its own parameter, given once.
  it.each([
    ['constructor=x', { constructor: 'x' }],
    ['__proto__=x', { ['__proto__']: 'x' }],
    ['toString=a&valueOf=b&hasOwnProperty=c', { toString: 'a', valueOf: 'b', hasOwnProperty: 'c' }],
    ['constructor.string=a&constructor.string=b', { 'constructor.string': ['a', 'b'] }],
  ])('rawQueryOf(%j) keeps prototype-named keys as given', (text, expected) => {
    const raw = rawQueryOf(text);
    expect(Object.keys(raw).sort()).toEqual(Object.keys(expected).sort());
    for (const [key, value] of Object.entries(expected)) expect(raw[key]).toEqual(value);
  });

  it('filters on properties named constructor, toString, hasOwnProperty and valueOf', () => {
    const query = parseListQuery(rawQueryOf('constructor.string=a&toString.string.ne=b&hasOwnProperty.number.gt=1&valueOf.boolean=true'));
    expect(query.filters.map((filter) => filter.property)).toEqual(['constructor', 'toString', 'hasOwnProperty', 'valueOf']);
  });
});

describe('parseListQuery: sort', () => {
  it.each<[string, { property: string; field: string; direction: 1 | -1 }[]]>([
    ['title.string', [{ property: 'title', field: 'string', direction: 1 }]],
    ['-n.number', [{ property: 'n', field: 'number', direction: -1 }]],
    [
      '-n.number,title.string,d.date',
      [
        { property: 'n', field: 'number', direction: -1 },
        { property: 'title', field: 'string', direction: 1 },
        { property: 'd', field: 'date', direction: 1 },
      ],
    ],
    ['-_created.datetime', [{ property: '_created', field: 'datetime', direction: -1 }]],
    ['f.filename,-f.filesize', [
      { property: 'f', field: 'filename', direction: 1 },
      { property: 'f', field: 'filesize', direction: -1 },
    ]],
    // Entu's tables: a reference column by its label or its id, a boolean column
    ['author.string', [{ property: 'author', field: 'string', direction: 1 }]],
    ['-author.reference', [{ property: 'author', field: 'reference', direction: -1 }]],
    ['done.boolean', [{ property: 'done', field: 'boolean', direction: 1 }]],
  ])('sort=%s', (text, sort) => {
    expect(parseListQuery({ sort: text }).sort).toEqual(sort);
  });

  it.each(['', 'title', 'title.text', 'title.str', '--title.string', '+title.string', 'title.string,', ',title.string', 'title.string.desc', 'title.string -n.number', '__sort.string', '__read.string', 'photo.file', 'author._id', '__proto__.string', '_api_key.string', '-_api_key.string'])(
    'sort=%j is refused',
    (text) => {
      expectRefused({ sort: text }, 'sort');
    },
  );

  it('a page of a boolean or reference sort resumes from its cursor; a cursor with other values is refused', () => {
    const sort = 'done.boolean,-author.reference';
    const { sort: keys } = parseListQuery({ sort });
    expect(parseListQuery({ sort, after: encodeCursor(keys, { values: [1, ID], id: ID2 }) }).after).toEqual({ values: [1, ID], id: ID2 });
    expect(parseListQuery({ sort, after: encodeCursor(keys, { values: [null, null], id: ID2 }) }).after).toEqual({ values: [null, null], id: ID2 });
    expectRefused({ sort, after: encodeCursor(keys, { values: ['true', ID], id: ID2 }) }, 'after');
    expectRefused({ sort, after: encodeCursor(keys, { values: [0, 'Jane'], id: ID2 }) }, 'after');
  });

  it('a field that is none (Entu\'s `.file`) is told which fields there are', () => {
    const error = expectRefused({ sort: 'photo.file' }, 'sort');
    expect(error.errors[0]!.message).toMatch(/"photo\.file" is not <property>\.<field>.*filename, filesize, filetype/);
  });
});

describe('parseListQuery: props', () => {
  it('names properties, system ones included', () => {
    expect(parseListQuery({ props: 'title,_created' }).props).toEqual(['title', '_created']);
  });

  it('names one field of a property\'s values with a path (Entu\'s props=ordinal.number)', () => {
    expect(parseListQuery({ props: 'ordinal.number,title,_type.string' }).props).toEqual(['ordinal.number', 'title', '_type.string']);
  });

  it.each(['', 'a,,b', 'a b', 'title.strings', 'title.string.x', '__read', '__q', '$where', 'a,'])('props=%j is refused', (text) => {
    expectRefused({ props: text }, 'props');
  });
});

describe('q: tokenising (case- and accent-insensitive words)', () => {
  it.each<[string, string[]]>([
    ['Crème Brûlée', ['creme', 'brulee']],
    ['CRÈME brûlée', ['creme', 'brulee']],
    ['HELLO World', ['hello', 'world']],
    ['rock-n-roll, baby!', ['rock', 'n', 'roll', 'baby']],
    ['R2-D2 & C-3PO', ['r2', 'd2', 'c', '3po']],
    ['  spaced   out\t\nwords  ', ['spaced', 'out', 'words']],
    ['Ünïcödé Ñandú', ['unicode', 'nandu']],
    ['Ωμέγα', ['ωμεγα']],
    ['ﬁne', ['fine']],
    ['e.mail@example.com', ['e', 'mail', 'example', 'com']],
    ['', []],
    ['!!! ---', []],
  ])('words(%j)', (text, expected) => {
    expect(words(text)).toEqual(expected);
  });

  it('search terms are the distinct words, each cut to the longest indexed prefix', () => {
    expect(searchTerms('Crème Brûlée')).toEqual(['creme', 'brulee']);
    expect(searchTerms('a A á')).toEqual(['a']);
    const long = 'x'.repeat(MAX_PREFIX + 10);
    expect(searchTerms(long)).toEqual(['x'.repeat(MAX_PREFIX)]);
  });

  it('parseListQuery folds q into terms', () => {
    expect(parseListQuery({ q: 'Crème BRÛLÉE' }).terms).toEqual(['creme', 'brulee']);
  });

  it(`at most ${MAX_TERMS} terms`, () => {
    expect(MAX_TERMS).toBe(16);
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect(parseListQuery({ q: terms(16) }).terms).toHaveLength(16);
    expectRefused({ q: terms(17) }, 'q');
    expectRefused({ q: terms(100) }, 'q');
  });
});

describe('prefixes: every prefix of every word, folded', () => {
  it.each<[string, string[]]>([
    ['Crème', ['c', 'cr', 'cre', 'crem', 'creme']],
    ['ab abc', ['a', 'ab', 'abc']],
    ['Ab-cd', ['a', 'ab', 'c', 'cd']],
    ['', []],
  ])('prefixes(%j)', (text, expected) => {
    expect(prefixes(text).sort()).toEqual(expected.sort());
  });

  it(`stops at ${MAX_PREFIX} characters per word`, () => {
    const entries = prefixes('y'.repeat(100));
    expect(entries).toHaveLength(MAX_PREFIX);
    expect(Math.max(...entries.map((entry) => entry.length))).toBe(MAX_PREFIX);
  });

  it('a query term matches an index entry exactly when it begins a word', () => {
    const index = new Set(prefixes('Crème Brûlée recipe'));
    for (const term of searchTerms('CRE bru RECIPE')) expect(index.has(term)).toBe(true);
    for (const term of searchTerms('ecipe rulee cremes')) expect(index.has(term)).toBe(false);
  });
});

describe('sortKeys: smallest and largest value per property and field', () => {
  let n = 0;
  const v = (type: string, data: Partial<Value>): Value => ({
    _id: (0x9000 + n++).toString(16).padStart(24, '0'),
    type,
    ...data,
    created: { at: '2024-01-01T00:00:00.000Z', by: ID },
  });
  const props = (entries: [string, Partial<Value>[]][]): Properties =>
    Object.fromEntries(entries.map(([name, values]) => [name, values.map((data) => v(name, data))]));

  it.each<[string, Partial<Value>[], FilterField, { min: string | number; max: string | number }]>([
    ['title', [{ string: 'b' }, { string: 'A' }, { string: 'émile' }], 'string', { min: 'a', max: 'emile' }],
    ['title', [{ string: 'Emma' }, { string: 'émile' }, { string: 'Emil' }], 'string', { min: 'emil', max: 'emma' }],
    ['n', [{ number: 3 }, { number: -1 }, { number: 10 }], 'number', { min: -1, max: 10 }],
    ['n', [{ number: 9 }, { number: 10 }], 'number', { min: 9, max: 10 }],
    ['n', [{ number: 42 }], 'number', { min: 42, max: 42 }],
    ['d', [{ date: '2024-05-01' }, { date: '1999-12-31' }, { date: '2024-12-01' }], 'date', { min: '1999-12-31', max: '2024-12-01' }],
    [
      't',
      [{ datetime: '2024-01-02T03:04:05.000Z' }, { datetime: '2023-06-01T00:00:00.000Z' }],
      'datetime',
      { min: '2023-06-01T00:00:00.000Z', max: '2024-01-02T03:04:05.000Z' },
    ],
    [
      'f',
      [{ filename: 'Zeta.pdf', filesize: 10, filetype: 'text/plain' }, { filename: 'alpha.txt', filesize: 9, filetype: 'application/pdf' }],
      'filename',
      { min: 'alpha.txt', max: 'zeta.pdf' },
    ],
    [
      'f',
      [{ filename: 'Zeta.pdf', filesize: 10, filetype: 'text/plain' }, { filename: 'alpha.txt', filesize: 9, filetype: 'application/pdf' }],
      'filesize',
      { min: 9, max: 10 },
    ],
    [
      'f',
      [{ filename: 'Zeta.pdf', filesize: 10, filetype: 'text/plain' }, { filename: 'alpha.txt', filesize: 9, filetype: 'application/pdf' }],
      'filetype',
      { min: 'application/pdf', max: 'text/plain' },
    ],
    [
      'label',
      [{ string: 'Tere', language: 'et' }, { string: 'Hello', language: 'en' }],
      'string',
      { min: 'hello', max: 'tere' },
    ],
  ])('%s %j → %s', (name, values, field, expected) => {
    expect(sortKeys(props([[name, values]]))[name]?.[field]).toEqual(expected);
  });

  it('_created sorts by its datetime, and by whom (the id, and the label when it has one)', () => {
    const keys = sortKeys(props([['_created', [{ datetime: '2024-05-01T10:00:00.000Z', reference: ID }]]]));
    expect(keys._created).toEqual({ datetime: { min: '2024-05-01T10:00:00.000Z', max: '2024-05-01T10:00:00.000Z' }, reference: { min: ID, max: ID } });
  });

  it('a reference sorts by its label (folded, as any string) and by its id', () => {
    const keys = sortKeys(props([['author', [{ reference: ID2, string: 'Émile' }, { reference: ID, string: 'jane' }, { reference: ID }]]]));
    expect(keys.author).toEqual({ string: { min: 'emile', max: 'jane' }, reference: { min: ID, max: ID2 } });
  });

  it('a boolean sorts false before true', () => {
    expect(sortKeys(props([['done', [{ boolean: true }, { boolean: false }]]])).done).toEqual({ boolean: { min: 0, max: 1 } });
    expect(sortKeys(props([['done', [{ boolean: true }]]])).done).toEqual({ boolean: { min: 1, max: 1 } });
  });

  it('keeps every property apart, and nothing for properties without values', () => {
    const keys = sortKeys(props([['a', [{ number: 1 }]], ['b', [{ number: 2 }]], ['c', []]]));
    expect(keys).toEqual({ a: { number: { min: 1, max: 1 } }, b: { number: { min: 2, max: 2 } } });
  });
});

describe('checkQueryTypes: filters and sorts must fit the definitions (SPEC §7)', () => {
  const TYPES = new Map<string, Set<ValueType>>([
    ['title', new Set<ValueType>(['string'])],
    ['summary', new Set<ValueType>(['text'])],
    ['n', new Set<ValueType>(['number'])],
    ['flag', new Set<ValueType>(['boolean'])],
    ['day', new Set<ValueType>(['date'])],
    ['at', new Set<ValueType>(['datetime'])],
    ['ref', new Set<ValueType>(['reference'])],
    ['doc', new Set<ValueType>(['file'])],
    ['mixed', new Set<ValueType>(['string', 'number'])],
  ]);
  const typeCheck = (text: string) => checkQueryTypes(parseListQuery(rawQueryOf(text)), TYPES);

  it.each([
    'title.string=x',
    'title.string.regex=/x/i',
    'summary.string=x',
    'summary.string.regex=/x/',
    'n.number.gt=1',
    'flag.boolean=true',
    'day.date.lt=2024-01-01',
    'at.datetime.exists=true',
    `ref.reference=${ID}`,
    'doc.filename=a.pdf',
    'doc.filesize.gt=1',
    'doc.filetype=text/plain',
    'mixed.string=a',
    'mixed.number=1',
    '_created.datetime.gte=2024-01-01T00:00:00Z',
    `_created.reference=${ID}`,
    `_type.reference=${ID}`,
    `_parent.reference=${ID}`,
    '_sharing.string=public',
    `_owner.reference=${ID}`,
    `_viewer.reference.in=${ID},${ID2}`,
    '_inheritrights.boolean=true',
    'sort=-_created.datetime',
    'sort=title.string,-n.number',
    'sort=doc.filesize,doc.filename',
    'sort=summary.string',
    `title.string=x&n.number.lt=3&_type.reference=${ID}&sort=-day.date`,
    // a reference's label (SPEC §7a), system references too
    'ref.string=Jane Austen',
    'ref.string.ne=x',
    'ref.string.in=a,b',
    'ref.string.regex=/^ja/i',
    'ref.string.exists=false',
    '_type.string=menu',
    '_parent.string.in=book,folder',
    '_owner.string=Owner',
    '_expander.string.exists=true',
    '_created.string=Owner',
    `_changed.reference=${ID}`,
    '_changed.datetime.gte=2024-01-01T00:00:00Z',
    'sort=-_changed.datetime',
    // who points at an entity, through what (_reference, issue 32)
    `_reference.reference=${ID}`,
    '_reference.property_type.ne=_parent',
    '_reference.entity_type.in=person,book',
    '_reference.string=Jane Austen',
    'sort=ref.string',
    'sort=-_parent.string',
    // booleans and reference ids sort too (Entu's table headers send them)
    'sort=flag.boolean',
    'sort=-ref.reference,_type.reference',
    'sort=_inheritrights.boolean',
    // whether a property has any value: of any property, defined or not (catalogue GAP-6)
    'add_from._id.exists=true',
    'table._id.exists=false',
    'ref._id.exists=true',
    'doc._id.exists=true',
    '_api_key._id.exists=true',
    '_viewer._id.exists=false',
    'constructor._id.exists=true',
  ])('%s is accepted', (text) => {
    expect(() => typeCheck(text)).not.toThrow();
  });

  it.each([
    // `_changed` names its author by id: it carries no label to filter by.
    ['_changed.string=Owner', '_changed.string'],
    ['_reference.number=1', '_reference.number'],
    ['title.property_type=author', 'title.property_type'],
    ['title.number=1', 'title.number'],
    ['title.number.in=1,2', 'title.number.in'],
    ['title.filename=a', 'title.filename'],
    ['summary.number=1', 'summary.number'],
    ['n.string=1', 'n.string'],
    ['n.string.regex=/1/', 'n.string.regex'],
    ['flag.string=true', 'flag.string'],
    ['day.datetime=2024-01-01T00:00:00Z', 'day.datetime'],
    ['at.date=2024-01-01', 'at.date'],
    ['n.string=Jane', 'n.string'],
    ['n.string.in=a,b', 'n.string.in'],
    ['sort=n.string', 'sort'],
    ['flag.string.exists=true', 'flag.string.exists'],
    [`title.reference=${ID}`, 'title.reference'],
    ['doc.string=a', 'doc.string'],
    ['doc.number=1', 'doc.number'],
    ['mixed.date=2024-01-01', 'mixed.date'],
    ['colour.string=red', 'colour.string'],
    ['colour.string.exists=false', 'colour.string.exists'],
    ['_created.date=2024-01-01', '_created.date'],
    ['_type.number=1', '_type.number'],
    ['_parent.boolean=true', '_parent.boolean'],
    [`_sharing.reference=${ID}`, '_sharing.reference'],
    ['constructor.string=x', 'constructor.string'],
    ['toString.string.exists=true', 'toString.string.exists'],
    ['_inheritrights.string=x', '_inheritrights.string'],
    ['_unknown.string=x', '_unknown.string'],
    ['_id.string=x', '_id.string'],
    ['sort=title.number', 'sort'],
    ['sort=colour.string', 'sort'],
    ['sort=_created.number', 'sort'],
    ['sort=title.boolean', 'sort'],
    ['sort=doc.string', 'sort'],
  ])('%s is refused, naming %s', (text, parameter) => {
    const error = refusal(() => typeCheck(text));
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((e) => e.parameter)).toContain(parameter);
  });

  it('reports every mismatch at once', () => {
    const error = refusal(() => typeCheck('title.number=1&colour.string=x&sort=n.string'));
    expect(error.errors.map((e) => e.parameter).sort()).toEqual(['colour.string', 'sort', 'title.number']);
  });

  it('says which fields a property has, a reference\'s label among them', () => {
    const error = refusal(() => typeCheck(`n.string=x&ref.number=1`));
    expect(error.errors).toEqual(
      expect.arrayContaining([
        { parameter: 'n.string', message: '"n" is number, not string' },
        { parameter: 'ref.number', message: '"ref" is reference/string, not number' },
      ]),
    );
  });
});

describe('parseReferenceQuery and checkDefinition (SPEC §5)', () => {
  it.each([`_type.reference=${ID}`, 'kind.string=author', 'kind.string.in=author,editor&n.number.gt=1', 'kind.string.regex=/^auth/i'])(
    '%s parses',
    (text) => {
      expect(parseReferenceQuery(text).filters.length).toBeGreaterThan(0);
    },
  );

  it.each([
    ['sort=title.string', 'sort'],
    ['limit=1', 'limit'],
    ['skip=1', 'skip'],
    ['q=x', 'q'],
    ['props=a', 'props'],
    ['kind.string.like=x', 'kind.string.like'],
    ['kind=author', 'kind'],
    ['kind.number=abc', 'kind.number'],
    ['_type.reference=abc', '_type.reference'],
    ['kind.string=a&kind.string=b', 'kind.string'],
    ['__proto__=x', '__proto__'],
    ['constructor=x', 'constructor'],
    ['__proto__.string=x', '__proto__.string'],
  ])('%s is refused, naming %s', (text, parameter) => {
    const error = refusal(() => parseReferenceQuery(text));
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((e) => e.parameter)).toContain(parameter);
  });

  const v = (type: string, data: Partial<Value>): Value => ({ _id: ID2, type, ...data, created: { at: '2024-01-01T00:00:00.000Z', by: ID } });
  const definition = (type: string, referenceQuery?: string): Properties => ({
    name: [v('name', { string: 'author' })],
    type: [v('type', { string: type })],
    ...(referenceQuery === undefined ? {} : { reference_query: [v('reference_query', { string: referenceQuery })] }),
  });

  it('a definition with a valid reference_query is fine', () => {
    expect(checkDefinition(definition('reference', `_type.reference=${ID}`))).toEqual([]);
    expect(checkDefinition(definition('reference', 'kind.string=author'))).toEqual([]);
  });

  it.each(['kind.string.like=x', 'sort=kind.string', 'kind.number=abc', 'kind', 'kind.string.regex=/(/'])(
    'a definition with reference_query %j is invalid',
    (text) => {
      const errors = checkDefinition(definition('reference', text));
      expect(errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/reference_query/) })]);
    },
  );

  it('reference_query on a property that is not a reference is invalid', () => {
    expect(checkDefinition(definition('string', 'kind.string=author'))).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/reference_query/) }),
    ]);
  });
});

describe('parseListQuery: <property>._id.exists, whether the entity has any value of the property (SPEC §7a)', () => {
  it.each<[string, string, boolean]>([
    ['add_from._id.exists', 'true', true],
    ['table._id.exists', 'false', false],
    ['_parent._id.exists', 'true', true],
    ['_api_key._id.exists', 'true', true],
    ['constructor._id.exists', 'true', true],
  ])('%s=%s', (key, text, value) => {
    const property = key.split('.')[0]!;
    expect(parseListQuery({ [key]: text }).filters).toEqual([{ property, field: '_id', op: 'exists', value }]);
  });

  it.each<[string, string]>([
    // only exists
    ['x._id', 'true'],
    ['x._id.eq', 'true'],
    ['x._id.ne', 'true'],
    ['x._id.in', 'a,b'],
    ['x._id.regex', '/a/'],
    ['x._id.gt', '1'],
    // only true or false
    ['x._id.exists', 'maybe'],
    ['x._id.exists', 'TRUE'],
    ['x._id.exists', ''],
    ['x._id.exists', '1'],
    ['x._id.exists', '{"$ne":null}'],
    // malformed names and fields
    ['__proto__._id.exists', 'true'],
    ['__read._id.exists', 'true'],
    ['$where._id.exists', 'true'],
    ['x._id.exists.exists', 'true'],
    ['x._ID.exists', 'true'],
    ['x.id.exists', 'true'],
    ['x._id._id.exists', 'true'],
    ['._id.exists', 'true'],
  ])('%s=%j is refused, naming the key', (key, text) => {
    expectRefused({ [key]: text }, key);
  });

  it('tells what it takes', () => {
    expect(expectRefused({ 'x._id.eq': 'true' }, 'x._id.eq').errors[0]!.message).toMatch(/takes only exists/);
    expect(expectRefused({ 'x._id.exists': 'maybe' }, 'x._id.exists').errors[0]!.message).toBe('must be true or false');
  });

  it('given twice is refused', () => {
    expectRefused(rawQueryOf('x._id.exists=true&x._id.exists=true'), 'x._id.exists');
  });
});

describe('parseListQuery: a reference\'s label filters as a string (SPEC §7a)', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['_type.string', 'menu', { op: 'eq', value: 'menu' }],
    ['_parent.string.in', 'book,folder', { op: 'in', values: ['book', 'folder'] }],
    ['author.string', 'Jane Austen', { op: 'eq', value: 'Jane Austen' }],
    ['author.string.ne', 'Jane Austen', { op: 'ne', value: 'Jane Austen' }],
    ['author.string.regex', '/^jane/i', { op: 'regex', pattern: '^jane', flags: 'i' }],
    ['author.string.exists', 'false', { op: 'exists', value: false }],
  ])('%s=%s', (key, text, expected) => {
    const [property, field] = key.split('.') as [string, FilterField];
    expect(parseListQuery({ [key]: text }).filters).toEqual([{ property, field, ...expected }]);
  });

  it.each<[string, string, string]>([
    ['too many values in in', '_parent.string.in', Array.from({ length: MAX_IN + 1 }, (_, i) => `t${i}`).join(',')],
    ['a pattern too long', 'author.string.regex', `/${'a'.repeat(MAX_REGEX + 1)}/`],
    ['a backreference', 'author.string.regex', '/(a)\\1/'],
    ['a lookahead', 'author.string.regex', '/a(?=b)/'],
    ['an invalid pattern', 'author.string.regex', '/(/'],
    ['a value longer than any string', 'author.string', 'x'.repeat(10_001)],
    ['an operator strings do not take', 'author.string.gt', 'a'],
    ['a secret', '_api_key.string', 'x'],
    ['a secret, in', '_api_key.string.in', 'x,y'],
  ])('%s is refused, naming the key', (_, key, text) => {
    expectRefused({ [key]: text }, key);
  });
});
