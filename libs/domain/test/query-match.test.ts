import { matchesFilter, matchesFilters, newProperties, parseListQuery, rawQueryOf, type Filter, type Properties, type Value } from '@entia/domain';

/**
 * The list filters evaluated in memory (`matchesFilter`), row by row against what the store's
 * MongoDB condition gives on the same entity: ANY-value semantics, no comparison across types,
 * datetimes as instants, references as ids. Filters are parsed from query strings, so each row
 * also shows the parser and the matcher agree; libs/store/test/match-agreement.test.ts checks the
 * same semantics against the real engine.
 */

const ID = '5f1d7a0c9b1e8a0012345678';
const ID2 = '5f1d7a0c9b1e8a0012345679';
const ID3 = '5f1d7a0c9b1e8a001234567a';

let ids = 0;
const value = (type: string, data: Partial<Value>): Value => ({
  _id: (ids++).toString(16).padStart(24, '0'),
  type,
  ...data,
  created: { at: '2024-01-01T00:00:00.000Z', by: ID },
});
const values = (type: string, ...data: Partial<Value>[]) => data.map((d) => value(type, d));
const entity = (properties: Record<string, Partial<Value>[]>): Properties =>
  newProperties(Object.entries(properties).map(([name, data]) => [name, values(name, ...data)]));

/** One value of every kind. */
const ONE = entity({
  name: [{ string: 'Ann' }],
  n: [{ number: 5 }],
  b: [{ boolean: true }],
  d: [{ date: '2024-02-29' }],
  t: [{ datetime: '2024-05-01T12:00:00.000Z' }],
  r: [{ reference: ID, string: 'Label' }],
  f: [{ filename: 'photo.PNG', filesize: 2048, filetype: 'image/png' }],
});

/** Several values per property: a filter holds when any of them satisfies it. */
const MANY = entity({
  name: [{ string: 'Ann' }, { string: 'Bob' }],
  n: [{ number: 1 }, { number: 10 }],
  b: [{ boolean: true }, { boolean: false }],
  d: [{ date: '2023-01-01' }, { date: '2025-01-01' }],
  t: [{ datetime: '2024-01-01T00:00:00.000Z' }, { datetime: '2024-12-31T23:59:59.999Z' }],
  r: [{ reference: ID }, { reference: ID2 }],
  f: [
    { filename: 'a.txt', filesize: 10, filetype: 'text/plain' },
    { filename: 'b.pdf', filesize: 5000, filetype: 'application/pdf' },
  ],
});

/** Every value alike: `ne` of that value finds none greater or smaller. */
const SAME = entity({ name: [{ string: 'Ann' }, { string: 'Ann' }], n: [{ number: 5 }, { number: 5 }], r: [{ reference: ID }, { reference: ID }] });

const NONE = entity({});

/** Values in several languages: one property, any value. */
const WORDS = entity({ title: [{ string: 'Hello', language: 'en' }, { string: 'Tere', language: 'et' }] });

/** A property whose values hold different fields (its type changed, or a reference's label). */
const MIXED = entity({ p: [{ string: '5' }, { number: 3 }, { reference: ID3, string: 'three' }] });

const LINES = entity({ text: [{ string: 'first line\nSecond line' }] });

const ENTITIES = { ONE, MANY, SAME, NONE, WORDS, MIXED, LINES };
type Name = keyof typeof ENTITIES;

/** The one filter a query string parses to. */
function filterOf(query: string): Filter {
  const { filters } = parseListQuery(rawQueryOf(query));
  expect(filters).toHaveLength(1);
  return filters[0]!;
}

describe('matchesFilter: every operator on every field, any value', () => {
  it.each<[string, Name, boolean]>([
    // string
    ['name.string=Ann', 'ONE', true],
    ['name.string=ann', 'ONE', false],
    ['name.string=Bob', 'MANY', true],
    ['name.string=Ann', 'NONE', false],
    ['name.string.ne=Ann', 'ONE', false],
    ['name.string.ne=Bob', 'ONE', true],
    ['name.string.ne=Ann', 'MANY', true],
    ['name.string.ne=Ann', 'SAME', false],
    ['name.string.ne=Ann', 'NONE', false],
    ['name.string.in=Bob,Cy', 'ONE', false],
    ['name.string.in=Bob,Cy', 'MANY', true],
    ['name.string.in=Ann', 'NONE', false],
    ['name.string.exists=true', 'ONE', true],
    ['name.string.exists=false', 'ONE', false],
    ['name.string.exists=true', 'NONE', false],
    ['name.string.exists=false', 'NONE', true],
    ['name.string.regex=/^b/', 'MANY', false],
    ['name.string.regex=/^b/i', 'MANY', true],
    ['name.string.regex=/^B/', 'MANY', true],
    ['name.string.regex=/n%2B/u', 'ONE', true],
    ['name.string.regex=/x/', 'NONE', false],
    // number
    ['n.number=5', 'ONE', true],
    ['n.number=5.0', 'ONE', true],
    ['n.number=5e0', 'ONE', true],
    ['n.number=6', 'ONE', false],
    ['n.number=10', 'MANY', true],
    ['n.number.ne=5', 'ONE', false],
    ['n.number.ne=5', 'SAME', false],
    ['n.number.ne=1', 'MANY', true],
    ['n.number.gt=5', 'ONE', false],
    ['n.number.gte=5', 'ONE', true],
    ['n.number.lt=5', 'ONE', false],
    ['n.number.lte=5', 'ONE', true],
    ['n.number.gt=9', 'MANY', true],
    ['n.number.lt=2', 'MANY', true],
    ['n.number.gt=10', 'MANY', false],
    ['n.number.lt=1', 'MANY', false],
    ['n.number.gt=-1', 'NONE', false],
    ['n.number.in=2,5', 'ONE', true],
    ['n.number.in=2,3', 'MANY', false],
    ['n.number.exists=true', 'MANY', true],
    ['n.number.exists=false', 'NONE', true],
    // boolean
    ['b.boolean=true', 'ONE', true],
    ['b.boolean=false', 'ONE', false],
    ['b.boolean=false', 'MANY', true],
    ['b.boolean=true', 'NONE', false],
    ['b.boolean.exists=true', 'ONE', true],
    ['b.boolean.exists=false', 'ONE', false],
    // date: its text orders like the dates
    ['d.date=2024-02-29', 'ONE', true],
    ['d.date.ne=2024-02-29', 'ONE', false],
    ['d.date.gt=2024-02-28', 'ONE', true],
    ['d.date.gt=2024-02-29', 'ONE', false],
    ['d.date.gte=2024-02-29', 'ONE', true],
    ['d.date.lt=2024-03-01', 'ONE', true],
    ['d.date.lte=2024-02-28', 'ONE', false],
    ['d.date.gt=2024-06-01', 'MANY', true],
    ['d.date.lt=2023-06-01', 'MANY', true],
    ['d.date.gt=2025-01-01', 'MANY', false],
    ['d.date.in=2023-01-01,1999-12-31', 'MANY', true],
    ['d.date.exists=false', 'ONE', false],
    // datetime: instants, whatever offset the filter names
    ['t.datetime=2024-05-01T12:00:00Z', 'ONE', true],
    ['t.datetime=2024-05-01T14:00:00%2B02:00', 'ONE', true],
    ['t.datetime=2024-05-01T12:00:00.001Z', 'ONE', false],
    ['t.datetime.ne=2024-05-01T14:00:00%2B02:00', 'ONE', false],
    ['t.datetime.gt=2024-05-01T13:59:59%2B02:00', 'ONE', true],
    ['t.datetime.gt=2024-05-01T14:00:00%2B02:00', 'ONE', false],
    ['t.datetime.gte=2024-05-01T14:00:00%2B02:00', 'ONE', true],
    ['t.datetime.lt=2024-05-01T08:00:00-04:00', 'ONE', false],
    ['t.datetime.lte=2024-05-01T08:00:00-04:00', 'ONE', true],
    ['t.datetime.lt=2024-05-01T08:00:01-04:00', 'ONE', true],
    ['t.datetime.gt=2024-12-31T23:59:59.998Z', 'MANY', true],
    ['t.datetime.lt=2024-01-01T00:00:00.001Z', 'MANY', true],
    ['t.datetime.gt=2024-12-31T23:59:59.999Z', 'MANY', false],
    ['t.datetime.in=2023-12-31T19:00:00-05:00,2020-01-01T00:00:00Z', 'MANY', true],
    ['t.datetime.exists=true', 'NONE', false],
    // reference: ids; the label in `string` is another field
    [`r.reference=${ID}`, 'ONE', true],
    [`r.reference=${ID2}`, 'ONE', false],
    [`r.reference=${ID2}`, 'MANY', true],
    [`r.reference.ne=${ID}`, 'ONE', false],
    [`r.reference.ne=${ID}`, 'SAME', false],
    [`r.reference.ne=${ID}`, 'MANY', true],
    [`r.reference.ne=${ID3}`, 'ONE', true],
    [`r.reference.in=${ID2},${ID3}`, 'ONE', false],
    [`r.reference.in=${ID2},${ID3}`, 'MANY', true],
    ['r.reference.exists=true', 'ONE', true],
    ['r.string=Label', 'ONE', true],
    ['r.string.exists=true', 'MANY', false],
    ['r.string.exists=false', 'MANY', true],
    // a reference's label, as any string (SPEC §7a)
    ['r.string=label', 'ONE', false],
    ['r.string.ne=Other', 'ONE', true],
    ['r.string.ne=Label', 'ONE', false],
    ['r.string.in=Other,Label', 'ONE', true],
    ['r.string.regex=/^lab/i', 'ONE', true],
    ['r.string=Label', 'MANY', false],
    ['p.string=three', 'MIXED', true],
    // `_id.exists`: whether the property has any value, whatever its fields
    ['r._id.exists=true', 'ONE', true],
    ['r._id.exists=true', 'MANY', true],
    ['r._id.exists=false', 'MANY', false],
    ['r._id.exists=true', 'NONE', false],
    ['r._id.exists=false', 'NONE', true],
    ['p._id.exists=true', 'MIXED', true],
    ['f._id.exists=true', 'ONE', true],
    ['title._id.exists=true', 'WORDS', true],
    ['add_from._id.exists=true', 'ONE', false],
    ['add_from._id.exists=false', 'ONE', true],
    // file fields: name and type as text, size as a number
    ['f.filename=photo.PNG', 'ONE', true],
    ['f.filename.regex=/\\.png$/', 'ONE', false],
    ['f.filename.regex=/\\.png$/i', 'ONE', true],
    ['f.filename.ne=a.txt', 'MANY', true],
    ['f.filename.in=b.pdf', 'MANY', true],
    ['f.filetype=image/png', 'ONE', true],
    ['f.filetype.regex=/^text\\//', 'MANY', true],
    ['f.filetype.in=image/gif,image/jpeg', 'ONE', false],
    ['f.filesize=2048', 'ONE', true],
    ['f.filesize.gt=2048', 'ONE', false],
    ['f.filesize.gte=2048', 'ONE', true],
    ['f.filesize.lt=100', 'MANY', true],
    ['f.filesize.lte=9', 'MANY', false],
    ['f.filesize.ne=10', 'MANY', true],
    ['f.filesize.exists=true', 'ONE', true],
    ['f.filesize.exists=false', 'NONE', true],
    // multilingual values: any language
    ['title.string=Tere', 'WORDS', true],
    ['title.string.regex=/^hel/i', 'WORDS', true],
    ['title.string.ne=Hello', 'WORDS', true],
    ['title.string.in=Hei,Hallo', 'WORDS', false],
    // mixed fields: each filter sees its own field only, and never another type
    ['p.string=5', 'MIXED', true],
    ['p.number=5', 'MIXED', false],
    ['p.number=3', 'MIXED', true],
    ['p.number.gt=2', 'MIXED', true],
    ['p.number.lt=3', 'MIXED', false],
    ['p.number.ne=3', 'MIXED', false],
    ['p.string.ne=5', 'MIXED', true],
    ['p.string.regex=/^\\d$/', 'MIXED', true],
    [`p.reference=${ID3}`, 'MIXED', true],
    [`p.reference.ne=${ID3}`, 'MIXED', false],
    ['p.boolean.exists=true', 'MIXED', false],
    ['p.reference.exists=true', 'MIXED', true],
    // regex flags: m (anchors at lines), s (dot takes a newline), i
    ['text.string.regex=/^second/i', 'LINES', false],
    ['text.string.regex=/^second/im', 'LINES', true],
    ['text.string.regex=/line$/', 'LINES', true],
    ['text.string.regex=/first line$/', 'LINES', false],
    ['text.string.regex=/first line$/m', 'LINES', true],
    ['text.string.regex=/line.second/i', 'LINES', false],
    ['text.string.regex=/line.second/is', 'LINES', true],
    ['text.string.regex=/LINE.S/msu', 'LINES', false],
  ])('%s on %s: %s', (query, name, expected) => {
    expect(matchesFilter(filterOf(query), ENTITIES[name])).toBe(expected);
  });
});

describe('matchesFilter: a pattern reads as MongoDB reads it (PCRE over UTF-8), not as JavaScript would', () => {
  const text = (string: string) => entity({ s: [{ string }] });

  it.each<[string, string, boolean]>([
    // code points, not UTF-16 units
    ['/^.$/', '\u{1F600}', true],
    ['/^..$/', '\u{1F600}', false],
    ['/^[^a]$/', '\u{1F600}', true],
    ['/\\p{L}/', 'é', true],
    // a line ends at \n only: \r, U+2028 and U+2029 are characters
    ['/a.b/', 'a\rb', true],
    ['/a.b/', 'a\u2028b', true],
    ['/a.b/', 'a\nb', false],
    ['/a.b/s', 'a\nb', true],
    ['/^b/m', 'a\rb', false],
    ['/^b/m', 'a\nb', true],
    ['/line$/m', 'line\r\nnext', false],
    ['/line\r$/m', 'line\r\nnext', true],
    ['/^a$/m', 'a\u2029b', false],
    // without m, `$` also matches before a final \n (PCRE; FerretDB's Go regexp does not)
    ['/abc$/', 'abc\n', true],
    ['/abc$/', 'abc\n\n', false],
    ['/abc$/', 'abc', true],
    // \s is ASCII: \t \n \v \f \r and space (FerretDB's Go regexp leaves \v out)
    ['/x\\sy/', 'x y', true],
    ['/x\\sy/', 'x\u000By', true],
    ['/x\\sy/', 'x\u00A0y', false],
    ['/^\\S+$/', 'x\u00A0y', true],
    ['/[\\s,]/', 'x\u00A0y', false],
    ['/[\\s,]/', 'x,y', true],
    ['/[\\s-_]/', 'AZ', false],
    ['/[\\s-_]/', 'a-b', true],
    ['/[\\s-_]/', 'a_b', true],
    ['/\\./', 'a.b', true],
    ['/[.]/', 'ab', false],
    // case folding by Unicode: ſ is an s, U+212A a K
    ['/ST/i', 'ſtraße', true],
    ['/kk/i', 'K\u212A', true],
    // only valid without u: read as the parser accepted it
    ['/\\-/', 'well-known', true],
    // a range up to a class: both engines refuse it, so it selects nothing
    ['/[a-\\s]/', 'a', false],
  ])('%s on %j: %s', (literal, string, expected) => {
    expect(matchesFilter(filterOf(`s.string.regex=${encodeURIComponent(literal)}`), text(string))).toBe(expected);
  });
});

describe('matchesFilters: every filter holds (an AND)', () => {
  it.each<[string, Name, boolean]>([
    ['', 'NONE', true],
    ['', 'ONE', true],
    ['name.string=Ann&n.number.gte=5', 'ONE', true],
    ['name.string=Ann&n.number.gt=5', 'ONE', false],
    // each filter may be satisfied by a different value: no filter asks for one value satisfying all
    ['n.number.gt=5&n.number.lt=5', 'MANY', true],
    ['n.number.gt=5&n.number.lt=5', 'ONE', false],
    [`name.string.regex=/^A/&b.boolean=false&r.reference=${ID2}&f.filetype=text/plain&d.date.lt=2024-01-01`, 'MANY', true],
    ['name.string.exists=false&n.number.exists=false', 'NONE', true],
    ['name.string.exists=false&n.number.exists=false', 'ONE', false],
  ])('%s on %s: %s', (query, name, expected) => {
    expect(matchesFilters(parseListQuery(rawQueryOf(query)).filters, ENTITIES[name])).toBe(expected);
  });
});

describe('matchesFilter: what the parser never builds still reads as the engine would', () => {
  const surrogate = entity({ s: [{ string: '\u{1F600}' }] }); // U+1F600 is the pair D83D DE00 in UTF-16
  const privateUse = '\uE000';

  it.each<[string, Filter, Properties, boolean]>([
    // MongoDB orders strings by UTF-8 bytes (code points): U+1F600 comes after U+E000, though its
    // first UTF-16 unit (D83D) comes before E000.
    ['a code point past U+FFFF orders after U+E000', { property: 's', field: 'string', op: 'gt', value: privateUse }, surrogate, true],
    ['…and not before it', { property: 's', field: 'string', op: 'lt', value: privateUse }, surrogate, false],
    ['a number never orders against a string', { property: 'p', field: 'string', op: 'gt', value: 1 }, MIXED, false],
    ['a boolean never equals a number', { property: 'b', field: 'boolean', op: 'eq', value: 1 }, ONE, false],
    ['an empty list of values matches nothing', { property: 'n', field: 'number', op: 'in', values: [] }, ONE, false],
  ])('%s', (_, filter, properties, expected) => {
    expect(matchesFilter(filter, properties)).toBe(expected);
  });

  it('a property named like an Object member finds only its own values', () => {
    const plain = { name: values('name', { string: 'x' }) } as Properties;
    expect(matchesFilter(filterOf('constructor.string.exists=true'), plain)).toBe(false);
    expect(matchesFilter(filterOf('constructor.string.exists=false'), plain)).toBe(true);
    expect(matchesFilter(filterOf('constructor._id.exists=true'), plain)).toBe(false);
    expect(matchesFilter(filterOf('toString._id.exists=false'), plain)).toBe(true);
  });

  it('patterns past the cache bound still answer, the early ones too', () => {
    const filter = filterOf('name.string.regex=/^a/i');
    for (let i = 0; i < 300; i++) matchesFilter(filterOf(`name.string.regex=/x${i}/`), ONE);
    expect(matchesFilter(filter, ONE)).toBe(true);
    expect(matchesFilter(filter, ONE)).toBe(true);
  });
});
