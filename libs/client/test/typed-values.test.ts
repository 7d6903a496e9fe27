import type { Entity, TypeDescription, Value } from '../src/types';
import { InputError, toObject, toValueInputs, UnknownPropertyError, type ReadContext } from '../src/typed/values';
import { def } from './support/definitions';

/**
 * The name-based object form of an entity, both ways: `toValueInputs` (an object a create or add
 * writes) and `toObject` (a wire entity as read). One row per thing a user of `db.type(…)` would see.
 */


const BOOK: TypeDescription = {
  _id: 'type-book',
  name: 'book',
  properties: [
    def('title', 'string', { mandatory: true }),
    def('body', 'text'),
    def('pages', 'number'),
    def('available', 'boolean'),
    def('published', 'date'),
    def('updated', 'datetime'),
    def('author', 'reference'),
    def('cover', 'file'),
    def('scans', 'file', { list: true }),
    def('tags', 'string', { list: true }),
    def('ratings', 'number', { list: true }),
    def('label', 'string', { multilingual: true }),
    def('keywords', 'string', { list: true, multilingual: true }),
    def('score', 'number', { formula: 'SUM(ratings.number)' }),
    def('isbn', 'string', { readonly: true }),
    // Names that an object's prototype also has: they must be read and written as data.
    def('constructor', 'string'),
    def('toString', 'number', { list: true }),
    def('hasOwnProperty', 'boolean'),
  ],
};

/** A type that defines none of the hostile names. */
const PLAIN: TypeDescription = { _id: 'type-plain', name: 'plain', properties: [def('title', 'string')] };

const PERSON_ID = '64b000000000000000000001';
const OTHER_ID = '64b000000000000000000002';
const AUTHOR_ID = '64b000000000000000000003';

const names: Record<string, string> = { 'type-book': 'book', 'type-person': 'person' };
const context: ReadContext = { typeName: (id) => names[id] };

let seq = 0;
/** A stored value of property `type`. */
function v(type: string, fields: Partial<Value>): Value {
  seq += 1;
  return { _id: `val-${seq}`, type, created: { at: '2024-01-01T00:00:00.000Z', by: PERSON_ID }, ...fields };
}
function entity(properties: Record<string, Value[]>): Entity {
  return { _id: 'ent-1', ...properties };
}

describe('toValueInputs: an object into the values a create writes', () => {
  it.each<[string, Record<string, unknown>, object[]]>([
    ['a string', { title: 'Dune' }, [{ type: 'title', string: 'Dune' }]],
    ['an empty string is a value', { title: '' }, [{ type: 'title', string: '' }]],
    ['a text as string', { body: 'Long…' }, [{ type: 'body', string: 'Long…' }]],
    ['a number', { pages: 412 }, [{ type: 'pages', number: 412 }]],
    ['zero and negatives are numbers', { pages: -0.5 }, [{ type: 'pages', number: -0.5 }]],
    ['false is a boolean, not nothing', { available: false }, [{ type: 'available', boolean: false }]],
    ['a date as YYYY-MM-DD', { published: '1965-08-01' }, [{ type: 'published', date: '1965-08-01' }]],
    ['a datetime string as given', { updated: '2024-05-01T12:00:00+02:00' }, [{ type: 'updated', datetime: '2024-05-01T12:00:00+02:00' }]],
    ['a Date as ISO 8601 UTC', { updated: new Date(Date.UTC(2024, 4, 1, 10)) }, [{ type: 'updated', datetime: '2024-05-01T10:00:00.000Z' }]],
    ['a reference as an id', { author: AUTHOR_ID }, [{ type: 'author', reference: AUTHOR_ID }]],
    ['a list as one value per item', { tags: ['sf', 'classic'] }, [{ type: 'tags', string: 'sf' }, { type: 'tags', string: 'classic' }]],
    ['a list given one item', { tags: 'sf' }, [{ type: 'tags', string: 'sf' }]],
    ['a number list, zero included', { ratings: [0, 5] }, [{ type: 'ratings', number: 0 }, { type: 'ratings', number: 5 }]],
    ['an empty list writes nothing', { tags: [] }, []],
    ['a multilingual value per language', { label: { en: 'Dune', et: 'Düün' } }, [{ type: 'label', string: 'Dune', language: 'en' }, { type: 'label', string: 'Düün', language: 'et' }]],
    ['a multilingual list per language', { keywords: { en: ['desert', 'spice'] } }, [{ type: 'keywords', string: 'desert', language: 'en' }, { type: 'keywords', string: 'spice', language: 'en' }]],
    ['a language left undefined is left out', { label: { en: 'Dune', et: undefined } }, [{ type: 'label', string: 'Dune', language: 'en' }]],
    ['an undefined property is left out', { title: 'Dune', pages: undefined }, [{ type: 'title', string: 'Dune' }]],
    ['properties in the order given', { pages: 1, title: 'A' }, [{ type: 'pages', number: 1 }, { type: 'title', string: 'A' }]],
    ['_parent as one id', { _parent: OTHER_ID }, [{ type: '_parent', reference: OTHER_ID }]],
    ['_parent as ids', { _parent: [OTHER_ID, AUTHOR_ID] }, [{ type: '_parent', reference: OTHER_ID }, { type: '_parent', reference: AUTHOR_ID }]],
    ['rights as ids', { _owner: PERSON_ID, _editor: [OTHER_ID], _expander: [], _viewer: [AUTHOR_ID] }, [{ type: '_owner', reference: PERSON_ID }, { type: '_editor', reference: OTHER_ID }, { type: '_viewer', reference: AUTHOR_ID }]],
    ['_sharing as a string', { _sharing: 'public' }, [{ type: '_sharing', string: 'public' }]],
    ['_inheritrights as a boolean', { _inheritrights: true }, [{ type: '_inheritrights', boolean: true }]],
    ['a property named constructor is data', { constructor: 'c' }, [{ type: 'constructor', string: 'c' }]],
    ['a property named toString is data', { toString: [1, 2] }, [{ type: 'toString', number: 1 }, { type: 'toString', number: 2 }]],
    ['a property named hasOwnProperty is data', { hasOwnProperty: false }, [{ type: 'hasOwnProperty', boolean: false }]],
    ['an object without a prototype', Object.assign(Object.create(null) as Record<string, unknown>, { title: 'Dune' }), [{ type: 'title', string: 'Dune' }]],
    ['an object from JSON.parse', JSON.parse('{"title":"Dune","pages":412}') as Record<string, unknown>, [{ type: 'title', string: 'Dune' }, { type: 'pages', number: 412 }]],
  ])('%s', (_case, input, expected) => {
    expect(toValueInputs(BOOK, input)).toEqual(expected);
  });

  it.each<[string, TypeDescription, unknown, RegExp]>([
    ['a file: files are uploaded', BOOK, { cover: { filename: 'a.png', filesize: 1, filetype: 'image/png' } }, /"cover" is a file property: store files with upload\(\)/],
    ['a file in a file list', BOOK, { scans: [{ filename: 'a.png', filesize: 1, filetype: 'image/png' }] }, /"scans" is a file property/],
    ['an array on a single property', BOOK, { title: ['Dune', 'Messiah'] }, /"title" holds one value, not an array/],
    ['an empty array on a single property', BOOK, { pages: [] }, /"pages" holds one value, not an array/],
    ['NaN', BOOK, { pages: Number.NaN }, /"pages" takes a finite number, not number/],
    ['Infinity', BOOK, { pages: Number.POSITIVE_INFINITY }, /"pages" takes a finite number/],
    ['-Infinity in a list', BOOK, { ratings: [1, Number.NEGATIVE_INFINITY] }, /"ratings" takes a finite number/],
    ['a number as text', BOOK, { pages: '412' }, /"pages" takes a finite number, not string/],
    ['a number for a string', BOOK, { title: 42 }, /"title" takes a string, not number/],
    ['an object for a string', BOOK, { title: { en: 'Dune' } }, /"title" takes a string, not object/],
    ['a Date for a string', BOOK, { title: new Date() }, /"title" takes a string, not object/],
    ['"true" for a boolean', BOOK, { available: 'true' }, /"available" takes a boolean, not string/],
    ['0 for a boolean', BOOK, { available: 0 }, /"available" takes a boolean/],
    ['a Date for a date', BOOK, { published: new Date() }, /"published" takes a date as YYYY-MM-DD/],
    ['an invalid Date', BOOK, { updated: new Date('nonsense') }, /"updated" takes a valid Date/],
    ['a timestamp for a datetime', BOOK, { updated: 1714557600000 }, /"updated" takes a Date or an ISO 8601 string, not number/],
    ['an object for a reference', BOOK, { author: { _id: AUTHOR_ID } }, /"author" takes an entity id, not object/],
    ['a bad item in a list', BOOK, { tags: ['sf', null] }, /"tags" takes a string, not null/],
    ['a nested array in a list', BOOK, { tags: [['sf']] }, /"tags" takes a string, not an array/],
    ['null (only update removes)', BOOK, { title: null }, /"title": null removes values, which only update\(\) does/],
    ['a plain string for a multilingual property', BOOK, { label: 'Dune' }, /"label" is multilingual: give \{language: value\}/],
    ['an array for a multilingual property', BOOK, { keywords: ['a'] }, /"keywords" is multilingual/],
    ['an array in one language of a single property', BOOK, { label: { en: ['a', 'b'] } }, /"label" holds one value, not an array/],
    ['a computed (formula) property', BOOK, { score: 5 }, /"score" is computed/],
    ['a read-only property', BOOK, { isbn: '978' }, /"isbn" is read-only/],
    ['_type (the handle sets it)', BOOK, { _type: 'type-book' }, /"_type" cannot be written here/],
    ['_created (the server sets it)', BOOK, { _created: '2024-01-01T00:00:00Z' }, /"_created" cannot be written here/],
    ['_id', BOOK, { _id: 'x' }, /"_id" cannot be written here/],
    ['a number for _sharing', BOOK, { _sharing: 1 }, /"_sharing" takes private, domain or public/],
    ['"yes" for _inheritrights', BOOK, { _inheritrights: 'yes' }, /"_inheritrights" takes a boolean/],
    ['a number among rights', BOOK, { _viewer: [PERSON_ID, 5] }, /"_viewer" takes entity ids/],
    ['an object for _parent', BOOK, { _parent: { _id: OTHER_ID } }, /"_parent" takes entity ids/],
    ['an own __proto__ key from JSON.parse', BOOK, JSON.parse('{"title":"Dune","__proto__":{"pages":1}}'), /"__proto__" cannot be written here/],
    ['an array instead of an object', BOOK, [{ title: 'Dune' }], /give the properties as a plain object/],
    ['null instead of an object', BOOK, null, /give the properties as a plain object/],
    ['a Map instead of an object', BOOK, new Map([['title', 'Dune']]), /give the properties as a plain object/],
    ['a class instance', BOOK, new (class Book { title = 'Dune'; })(), /give the properties as a plain object/],
  ])('refuses %s', (_case, type, input, message) => {
    const attempt = () => toValueInputs(type, input as Record<string, unknown>);
    expect(attempt).toThrow(InputError);
    expect(attempt).toThrow(message);
  });

  it.each<[string, TypeDescription, Record<string, unknown>, string]>([
    ['a name the type does not define', BOOK, { title: 'Dune', subtitle: 'x' }, 'subtitle'],
    ['constructor on a type without it', PLAIN, { constructor: 'x' }, 'constructor'],
    ['toString on a type without it', PLAIN, { toString: 'x' }, 'toString'],
    ['valueOf on a type without it', PLAIN, JSON.parse('{"valueOf":"x"}'), 'valueOf'],
    ['a name differing in case', BOOK, { Title: 'Dune' }, 'Title'],
  ])('refuses %s as unknown', (_case, type, input, property) => {
    const attempt = () => toValueInputs(type, input);
    expect(attempt).toThrow(UnknownPropertyError);
    try {
      attempt();
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      expect(error).toMatchObject({ name: 'InputError', property, typeName: type.name, message: `type "${type.name}" has no property "${property}"` });
    }
  });

  it('an own __proto__ key neither sets the prototype nor goes unnoticed', () => {
    const input = JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(() => toValueInputs(BOOK, input)).toThrow(InputError);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('toObject: a wire entity as an object', () => {
  it.each<[string, Record<string, Value[]>, ReadContext, Record<string, unknown>]>([
    ['a string', { title: [v('title', { string: 'Dune' })] }, context, { title: 'Dune' }],
    ['a text', { body: [v('body', { string: 'Long…' })] }, context, { body: 'Long…' }],
    ['a number', { pages: [v('pages', { number: 412 })] }, context, { pages: 412 }],
    ['zero stays zero', { pages: [v('pages', { number: 0 })] }, context, { pages: 0 }],
    ['false stays false', { available: [v('available', { boolean: false })] }, context, { available: false }],
    ['a date', { published: [v('published', { date: '1965-08-01' })] }, context, { published: '1965-08-01' }],
    ['a datetime as the server wrote it', { updated: [v('updated', { datetime: '2024-05-01T10:00:00.000Z' })] }, context, { updated: '2024-05-01T10:00:00.000Z' }],
    ['a reference as its id, not its label', { author: [v('author', { reference: AUTHOR_ID, string: 'Frank Herbert' })] }, context, { author: AUTHOR_ID }],
    [
      'a file as {_id, filename, filesize, filetype}',
      { cover: [{ ...v('cover', { filename: 'dune.png', filesize: 2048, filetype: 'image/png', url: 'https://s3/x' }), _id: 'file-1' }] },
      context,
      { cover: { _id: 'file-1', filename: 'dune.png', filesize: 2048, filetype: 'image/png' } },
    ],
    [
      'a file list as an array of files',
      { scans: [{ ...v('scans', { filename: 'p1.jpg', filesize: 1, filetype: 'image/jpeg' }), _id: 's-1' }, { ...v('scans', { filename: 'p2.jpg', filesize: 2, filetype: 'image/jpeg' }), _id: 's-2' }] },
      context,
      { scans: [{ _id: 's-1', filename: 'p1.jpg', filesize: 1, filetype: 'image/jpeg' }, { _id: 's-2', filename: 'p2.jpg', filesize: 2, filetype: 'image/jpeg' }] },
    ],
    ['a list as an array', { tags: [v('tags', { string: 'sf' }), v('tags', { string: 'classic' })] }, context, { tags: ['sf', 'classic'] }],
    ['a single property with several values: the first', { title: [v('title', { string: 'A' }), v('title', { string: 'B' })] }, context, { title: 'A' }],
    ['a single property without values is absent', { title: [] }, context, {}],
    [
      'a multilingual value per language',
      { label: [v('label', { string: 'Dune', language: 'en' }), v('label', { string: 'Düün', language: 'et' })] },
      context,
      { label: { en: 'Dune', et: 'Düün' } },
    ],
    [
      'a multilingual list per language',
      { keywords: [v('keywords', { string: 'a', language: 'en' }), v('keywords', { string: 'b', language: 'et' }), v('keywords', { string: 'c', language: 'en' })] },
      context,
      { keywords: { en: ['a', 'c'], et: ['b'] } },
    ],
    [
      'a picked language: the value itself',
      { label: [v('label', { string: 'Dune', language: 'en' }), v('label', { string: 'Düün', language: 'et' })] },
      { ...context, language: 'et' },
      { label: 'Düün' },
    ],
    [
      'a picked language a single value lacks: absent',
      { label: [v('label', { string: 'Dune', language: 'en' })] },
      { ...context, language: 'et' },
      {},
    ],
    [
      'a picked language of a list',
      { keywords: [v('keywords', { string: 'a', language: 'en' }), v('keywords', { string: 'b', language: 'et' })] },
      { ...context, language: 'en' },
      { keywords: ['a'] },
    ],
    ['a property named constructor', { constructor: [v('constructor', { string: 'c' })] }, context, { constructor: 'c' }],
    ['a list named toString', { toString: [v('toString', { number: 1 }), v('toString', { number: 2 })] }, context, { toString: [1, 2] }],
    ['a property named hasOwnProperty', { hasOwnProperty: [v('hasOwnProperty', { boolean: true })] }, context, { hasOwnProperty: true }],
  ])('%s', (_case, properties, ctx, expected) => {
    const object = toObject(entity(properties), BOOK, ctx);
    const lists = { scans: [], tags: [], ratings: [], keywords: ctx.language === undefined ? {} : [], toString: [] };
    expect(object).toEqual({ _id: 'ent-1', ...lists, ...expected });
  });

  it.each<[string, ReadContext, Record<string, unknown>]>([
    ['lists absent read as [], multilingual ones as {}', context, { scans: [], tags: [], ratings: [], keywords: {}, toString: [] }],
    ['with a picked language, an absent multilingual list is []', { ...context, language: 'en' }, { scans: [], tags: [], ratings: [], keywords: [], toString: [] }],
    ['select leaves out the lists not selected', { ...context, select: ['title', 'tags'] }, { tags: [] }],
    ['select of a multilingual list', { ...context, select: ['keywords'] }, { keywords: {} }],
    ['select of no list', { ...context, select: ['title'] }, {}],
  ])('an entity without values: %s', (_case, ctx, expected) => {
    expect(toObject(entity({}), BOOK, ctx)).toEqual({ _id: 'ent-1', ...expected });
  });

  it.each<[string, Record<string, Value[]>, Record<string, unknown>]>([
    ['_type as the type name', { _type: [v('_type', { reference: 'type-book', string: 'book' })] }, { _type: 'book' }],
    ['_type of a type the handle does not know: its id', { _type: [v('_type', { reference: 'type-secret' })] }, { _type: 'type-secret' }],
    ['_created as its datetime', { _created: [v('_created', { datetime: '2024-05-01T10:00:00.000Z', reference: PERSON_ID })] }, { _created: '2024-05-01T10:00:00.000Z' }],
    ['_sharing', { _sharing: [v('_sharing', { string: 'domain' })] }, { _sharing: 'domain' }],
    ['_inheritrights false', { _inheritrights: [v('_inheritrights', { boolean: false })] }, { _inheritrights: false }],
    ['_parent as ids', { _parent: [v('_parent', { reference: OTHER_ID, string: 'Shelf' })] }, { _parent: [OTHER_ID] }],
    [
      'rights as id arrays, inherited ones included',
      {
        _owner: [v('_owner', { reference: PERSON_ID, string: 'Ann' })],
        _editor: [v('_editor', { reference: OTHER_ID }), v('_editor', { reference: AUTHOR_ID, inherited: true })],
        _expander: [],
        _viewer: [v('_viewer', { reference: AUTHOR_ID })],
      },
      { _owner: [PERSON_ID], _editor: [OTHER_ID, AUTHOR_ID], _expander: [], _viewer: [AUTHOR_ID] },
    ],
    [
      'rights as the entity stores them: the holders of higher levels the API lists too (property_type) left out',
      {
        _owner: [v('_owner', { reference: PERSON_ID })],
        _editor: [v('_editor', { reference: OTHER_ID }), v('_editor', { reference: PERSON_ID, property_type: '_owner' })],
        _viewer: [v('_viewer', { reference: PERSON_ID, property_type: '_owner' })],
      },
      { _owner: [PERSON_ID], _editor: [OTHER_ID] },
    ],
    ['_changed as its datetime', { _changed: [v('_changed', { datetime: '2024-06-01T10:00:00.000Z', reference: PERSON_ID })] }, { _changed: '2024-06-01T10:00:00.000Z' }],
    ['an API key is left out', { _api_key: [v('_api_key', { string: '***' })] }, {}],
    ['_type without values is absent', { _type: [] }, {}],
  ])('system field: %s', (_case, properties, expected) => {
    const object = toObject(entity(properties), undefined, context);
    expect(object).toEqual({ _id: 'ent-1', ...expected });
  });

  it.each<[string, Value[], unknown]>([
    ['a string', [v('x', { string: 'a' })], ['a']],
    ['a reference: its id, not its label', [v('x', { reference: AUTHOR_ID, string: 'Frank Herbert' })], [AUTHOR_ID]],
    ['a number', [v('x', { number: 0 })], [0]],
    ['a boolean', [v('x', { boolean: false })], [false]],
    ['a file', [{ ...v('x', { filename: 'a.txt', filesize: 1, filetype: 'text/plain' }), _id: 'f' }], [{ _id: 'f', filename: 'a.txt', filesize: 1, filetype: 'text/plain' }]],
  ])('a property without a definition (a stale schema) reads as a list: %s', (_case, values, expected) => {
    expect(toObject(entity({ newer: values }), BOOK, context).newer).toEqual(expected);
    expect(toObject(entity({ newer: values }), undefined, context).newer).toEqual(expected);
  });

  it('is a plain object whose prototype-named properties are its own data', () => {
    const object = toObject(entity({ constructor: [v('constructor', { string: 'c' })], toString: [v('toString', { number: 1 })] }), BOOK, context);
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    expect(Object.hasOwn(object, 'constructor')).toBe(true);
    expect(object.constructor).toBe('c');
    expect(object.toString).toEqual([1]);
    expect(JSON.parse(JSON.stringify(object))).toEqual({ _id: 'ent-1', constructor: 'c', toString: [1], scans: [], tags: [], ratings: [], keywords: {} });
  });

  it('a toString list without values is [] of its own, not Object.prototype.toString', () => {
    const object = toObject(entity({}), BOOK, context);
    expect(Object.hasOwn(object, 'toString')).toBe(true);
    expect(object.toString).toEqual([]);
  });

  it('an own __proto__ key of a parsed entity neither shows nor sets the prototype', () => {
    const wire = JSON.parse(`{"_id":"ent-1","__proto__":[{"_id":"v","type":"__proto__","string":"x","created":{"at":"2024-01-01T00:00:00.000Z","by":"p"}}]}`) as Entity;
    const object = toObject(wire, BOOK, context);
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    expect(Object.hasOwn(object, '__proto__')).toBe(false);
  });

  it('ignores non-array fields besides _id', () => {
    const wire = { _id: 'ent-1', title: [v('title', { string: 'Dune' })], odd: 'x' } as unknown as Entity;
    expect(toObject(wire, PLAIN, context)).toEqual({ _id: 'ent-1', title: 'Dune' });
  });
});
