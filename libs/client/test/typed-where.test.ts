import type { EntityQuery, TypeDescription } from '../src/types';
import { InputError, UnknownPropertyError } from '../src/typed/values';
import { toListQuery, type ListInput } from '../src/typed/where';
import { def } from './support/definitions';

/**
 * A list's name-based parameters in the wire's query syntax (SPEC §7):
 * `<property>.<field>[.<operator>]=<value>`, `sort=[-]<property>.<field>`, `props=…`.
 */


const BOOK: TypeDescription = {
  _id: '64b0000000000000000000aa',
  name: 'book',
  properties: [
    def('title', 'string'),
    def('body', 'text'),
    def('pages', 'number'),
    def('available', 'boolean'),
    def('published', 'date'),
    def('updated', 'datetime'),
    def('author', 'reference'),
    def('cover', 'file'),
    def('tags', 'string', { list: true }),
    def('label', 'string', { multilingual: true }),
    def('score', 'number', { formula: 'SUM(pages.number)' }),
    def('constructor', 'string'),
    def('toString', 'number'),
  ],
};

const A1 = '64b000000000000000000001';
const A2 = '64b000000000000000000002';
const TYPE = { '_type.reference': BOOK._id };

describe('toListQuery: where', () => {
  it.each<[string, Record<string, unknown>, EntityQuery]>([
    // A bare value means equality, which the wire writes without an operator suffix.
    ['a bare string is eq, without .eq', { title: 'Dune' }, { 'title.string': 'Dune' }],
    ['{eq} is written like a bare value', { title: { eq: 'Dune' } }, { 'title.string': 'Dune' }],
    ['string ne', { title: { ne: 'Dune' } }, { 'title.string.ne': 'Dune' }],
    ['string in, joined with commas', { title: { in: ['Dune', 'Emma'] } }, { 'title.string.in': 'Dune,Emma' }],
    ['string regex as text', { title: { regex: '/^du/i' } }, { 'title.string.regex': '/^du/i' }],
    ['string regex as a RegExp: /source/flags', { title: { regex: /^du.e$/iu } }, { 'title.string.regex': '/^du.e$/iu' }],
    ['a RegExp with a slash keeps its escaped source', { title: { regex: /a\/b/ } }, { 'title.string.regex': '/a\\/b/' }],
    ['string exists', { title: { exists: false } }, { 'title.string.exists': 'false' }],
    ['an empty string is a value', { title: '' }, { 'title.string': '' }],
    ['text filters as string', { body: { regex: /spice/ } }, { 'body.string.regex': '/spice/' }],
    ['a bare text value', { body: 'x' }, { 'body.string': 'x' }],
    ['a list property: any of its values', { tags: 'sf' }, { 'tags.string': 'sf' }],
    ['a multilingual property: any language', { label: 'Dune' }, { 'label.string': 'Dune' }],
    ['a bare number', { pages: 412 }, { 'pages.number': '412' }],
    ['zero is a value', { pages: 0 }, { 'pages.number': '0' }],
    ['number ranges', { pages: { gt: 1, gte: 2, lt: 10, lte: 9 } }, { 'pages.number.gt': '1', 'pages.number.gte': '2', 'pages.number.lt': '10', 'pages.number.lte': '9' }],
    ['number ne and in', { pages: { ne: 3, in: [1, 2.5, -4] } }, { 'pages.number.ne': '3', 'pages.number.in': '1,2.5,-4' }],
    ['a computed property filters like any other', { score: { gte: 4 } }, { 'score.number.gte': '4' }],
    ['a bare boolean', { available: true }, { 'available.boolean': 'true' }],
    ['false is a value', { available: false }, { 'available.boolean': 'false' }],
    ['boolean eq and exists', { available: { eq: false, exists: true } }, { 'available.boolean': 'false', 'available.boolean.exists': 'true' }],
    ['a bare date', { published: '1965-08-01' }, { 'published.date': '1965-08-01' }],
    ['date ranges and in', { published: { gte: '1965-01-01', lt: '1966-01-01', in: ['1965-08-01'] } }, { 'published.date.gte': '1965-01-01', 'published.date.lt': '1966-01-01', 'published.date.in': '1965-08-01' }],
    ['a datetime as text', { updated: '2024-05-01T12:00:00+02:00' }, { 'updated.datetime': '2024-05-01T12:00:00+02:00' }],
    ['a datetime as a Date: ISO 8601', { updated: new Date(Date.UTC(2024, 4, 1)) }, { 'updated.datetime': '2024-05-01T00:00:00.000Z' }],
    ['datetime ranges with Dates', { updated: { gte: new Date(Date.UTC(2024, 0, 1)), lt: '2025-01-01T00:00:00Z' } }, { 'updated.datetime.gte': '2024-01-01T00:00:00.000Z', 'updated.datetime.lt': '2025-01-01T00:00:00Z' }],
    ['datetime in with Dates (their ISO form has no comma)', { updated: { in: [new Date(0)] } }, { 'updated.datetime.in': '1970-01-01T00:00:00.000Z' }],
    ['a bare reference', { author: A1 }, { 'author.reference': A1 }],
    ['reference ne, in, exists', { author: { ne: A1, in: [A1, A2], exists: true } }, { 'author.reference.ne': A1, 'author.reference.in': `${A1},${A2}`, 'author.reference.exists': 'true' }],
    ['a file by size', { cover: { filesize: { gt: 10 } } }, { 'cover.filesize.gt': '10' }],
    ['a file by bare size', { cover: { filesize: 2048 } }, { 'cover.filesize': '2048' }],
    ['a file by name pattern and type', { cover: { filename: { regex: /\.png$/i }, filetype: 'image/png' } }, { 'cover.filename.regex': '/\\.png$/i', 'cover.filetype': 'image/png' }],
    ['a file by type list', { cover: { filetype: { in: ['image/png', 'image/webp'] } } }, { 'cover.filetype.in': 'image/png,image/webp' }],
    ['a file that has one', { cover: { filename: { exists: true } } }, { 'cover.filename.exists': 'true' }],
    ['_created as a datetime', { _created: { gte: new Date(Date.UTC(2024, 0, 1)) } }, { '_created.datetime.gte': '2024-01-01T00:00:00.000Z' }],
    ['a bare _created', { _created: '2024-01-01T00:00:00Z' }, { '_created.datetime': '2024-01-01T00:00:00Z' }],
    ['_changed as a datetime', { _changed: { lt: '2024-06-01T00:00:00Z' } }, { '_changed.datetime.lt': '2024-06-01T00:00:00Z' }],
    ['_parent as a reference', { _parent: A1 }, { '_parent.reference': A1 }],
    ['_parent in', { _parent: { in: [A1, A2] } }, { '_parent.reference.in': `${A1},${A2}` }],
    ['several conditions (AND)', { title: 'Dune', pages: { gte: 100 } }, { 'title.string': 'Dune', 'pages.number.gte': '100' }],
    ['undefined conditions are left out', { title: undefined, pages: { gte: undefined, lt: 5 } }, { 'pages.number.lt': '5' }],
    ['a property named constructor', { constructor: 'c' }, { 'constructor.string': 'c' }],
    ['a property named toString', { toString: { gt: 1 } }, { 'toString.number.gt': '1' }],
    ['an in item that is empty text', { title: { in: [''] } }, { 'title.string.in': '' }],
  ])('%s', (_case, where, expected) => {
    expect(toListQuery(BOOK, { where })).toEqual({ ...TYPE, ...expected });
  });

  it('puts _type first', () => {
    expect(Object.keys(toListQuery(BOOK, { where: { pages: 1 }, sort: 'title', limit: 5 }))[0]).toBe('_type.reference');
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown operator', { title: { like: 'Dune' } }, /"title.string": unknown operator "like"/],
    ['an operator named constructor', { title: JSON.parse('{"constructor":"x"}') }, /unknown operator "constructor"/],
    ['an own __proto__ operator from JSON.parse', { title: JSON.parse('{"__proto__":"x"}') }, /unknown operator "__proto__"/],
    ['in without an array', { title: { in: 'Dune,Emma' } }, /"title.string.in" takes an array/],
    ['an in item with a comma', { title: { in: ['Dune, the novel', 'Emma'] } }, /"title.string.in": an item cannot contain a comma/],
    ['an empty in (it would match empty text)', { title: { in: [] } }, /"title.string.in" needs at least one item/],
    ['a null condition', { title: null }, /"title.string" takes a string, number, boolean or Date, not null/],
    ['an array condition', { title: ['Dune'] }, /"title.string" takes a string, number, boolean or Date, not object/],
    ['an object as a value', { title: { eq: { en: 'Dune' } } }, /"title.string.eq" takes a string, number, boolean or Date, not object/],
    ['an in item that is null', { pages: { in: [1, null] } }, /takes a string, number, boolean or Date, not null/],
    ['a bare RegExp (it would match its text exactly)', { title: /^Dune/ }, /"title.string": a RegExp goes in \{regex: …\}/],
    ['a RegExp as eq', { title: { eq: /^Dune/ } }, /"title.string.eq": a RegExp goes in \{regex: …\}/],
    ['a RegExp in an in list', { title: { in: [/^Dune/] } }, /a RegExp goes in \{regex: …\}/],
    ['a bare value for a file', { cover: 'dune.png' }, /"cover" is a file property: filter on filename, filesize or filetype/],
    ['null for a file', { cover: null }, /"cover" is a file property/],
    ['a file field that does not exist', { cover: { size: { gt: 1 } } }, /"cover": a file filters on filename, filesize or filetype, not "size"/],
    ['a file field named constructor', { cover: JSON.parse('{"constructor":"x"}') }, /a file filters on filename, filesize or filetype, not "constructor"/],
    ['a file field named toString', { cover: { toString: 'x' } }, /not "toString"/],
    ['an own __proto__ file field from JSON.parse', { cover: JSON.parse('{"__proto__":{"gt":1}}') }, /not "__proto__"/],
    ['an unknown operator on a file field', { cover: { filesize: { above: 1 } } }, /"cover.filesize": unknown operator "above"/],
  ])('refuses %s', (_case, where, message) => {
    const attempt = () => toListQuery(BOOK, { where });
    expect(attempt).toThrow(InputError);
    expect(attempt).toThrow(message);
  });

  it.each<[string, ListInput]>([
    ['a where name the type lacks', { where: { subtitle: 'x' } }],
    ['a where name differing in case', { where: { Title: 'x' } }],
    ['_type in where (the handle sets it)', { where: { _type: 'x' } }],
    ['an own __proto__ key of where', { where: JSON.parse('{"__proto__":"x"}') as Record<string, unknown> }],
    ['valueOf in where', { where: { valueOf: 1 } }],
    ['a sort name the type lacks', { sort: 'subtitle' }],
    ['a descending sort name the type lacks', { sort: ['title', '-subtitle'] }],
    ['a select name the type lacks', { select: ['title', 'subtitle'] }],
  ])('refuses %s as unknown', (_case, input) => {
    expect(() => toListQuery(BOOK, input)).toThrow(UnknownPropertyError);
  });
});

describe('toListQuery: sort, select, q, paging', () => {
  it.each<[string, ListInput, EntityQuery]>([
    ['one key, ascending', { sort: 'title' }, { sort: ['title.string'] }],
    ['descending with -', { sort: '-pages' }, { sort: ['-pages.number'] }],
    ['several keys in order', { sort: ['-_created', 'body', 'published'] }, { sort: ['-_created.datetime', 'body.string', 'published.date'] }],
    ['the last change first', { sort: ['-_changed'] }, { sort: ['-_changed.datetime'] }],
    ['a file sorts on its filename', { sort: 'cover' }, { sort: ['cover.filename'] }],
    ['a file descending', { sort: '-cover' }, { sort: ['-cover.filename'] }],
    ['a datetime and a reference', { sort: ['updated', '-author'] }, { sort: ['updated.datetime', '-author.reference'] }],
    ['no sort keys: no sort', { sort: [] }, {}],
    ['select asks for the system fields too', { select: ['title', 'tags'] }, { props: ['title', 'tags', '_type', '_created', '_changed', '_sharing'] }],
    ['select naming a system field once', { select: ['title', '_created', '_owner'] }, { props: ['title', '_created', '_owner', '_type', '_changed', '_sharing'] }],
    ['an empty select: the system fields only', { select: [] }, { props: ['_type', '_created', '_changed', '_sharing'] }],
    ['q, limit and skip as given', { q: 'dune herbert', limit: 10, skip: 20 }, { q: 'dune herbert', limit: 10, skip: 20 }],
    ['limit 0 (a count only) is kept', { limit: 0 }, { limit: 0 }],
    ['an empty q is kept', { q: '' }, { q: '' }],
    ['nothing: the type only', {}, {}],
  ])('%s', (_case, input, expected) => {
    expect(toListQuery(BOOK, input)).toEqual({ ...TYPE, ...expected });
  });
});
