import { DatabaseSchemaSchema, describeDefinition, describeSchema, type Caller, type Entity, type Properties } from '@entia/domain';
import { Value } from '@sinclair/typebox/value';
import { OWNER, STRANGER, caller, hexId, val } from './fixtures';

/** GET /api/{db}/schema (issue 19): how a definition is described, who sees what, in which order. */

type Field = string | number | boolean;

/** A definition entity with `fields` (strings, numbers, booleans), shared as `sharing`, owned by OWNER. */
function definition(n: number, fields: Record<string, Field>, sharing = 'domain', extra: Properties = {}): Entity {
  const properties: Properties = {
    _owner: [val('_owner', { reference: OWNER })],
    _sharing: [val('_sharing', { string: sharing })],
    ...extra,
  };
  for (const [name, data] of Object.entries(fields)) {
    properties[name] = [val(name, typeof data === 'boolean' ? { boolean: data } : typeof data === 'number' ? { number: data } : { string: data })];
  }
  return { _id: hexId(n), properties };
}

const type = (n: number, name: string | undefined, sharing = 'domain'): Entity => definition(n, name === undefined ? {} : { name }, sharing);

describe('describeDefinition', () => {
  const ID = hexId(0x20);
  const flags = { list: false, multilingual: false, search: false, mandatory: false, readonly: false };
  // What the value type's descriptor says a front reads and writes (issue 34).
  const text = { fields: [{ name: 'string', scalar: 'string' }], input: 'value' };
  const number = { fields: [{ name: 'number', scalar: 'number' }], input: 'value' };
  const reference = { fields: [{ name: 'reference', scalar: 'id' }], input: 'value' };
  it.each<[string, Record<string, Field>, object | undefined]>([
    ['only name and type: every flag false, no formula or reference_query', { name: 'title', type: 'string' }, { _id: ID, name: 'title', type: 'string', ...flags, ...text }],
    [
      'every flag set',
      { name: 'tags', type: 'string', list: true, multilingual: true, search: true, mandatory: true, readonly: true },
      { _id: ID, name: 'tags', type: 'string', list: true, multilingual: true, search: true, mandatory: true, readonly: true, ...text },
    ],
    ['a flag stored as false', { name: 'tags', type: 'string', list: false }, { _id: ID, name: 'tags', type: 'string', ...flags, ...text }],
    ['a formula', { name: 'total', type: 'number', formula: '_child.book.pages SUM' }, { _id: ID, name: 'total', type: 'number', ...flags, formula: '_child.book.pages SUM', ...number }],
    [
      'a reference_query',
      { name: 'author', type: 'reference', reference_query: 'name.string=x' },
      { _id: ID, name: 'author', type: 'reference', ...flags, reference_query: 'name.string=x', ...reference },
    ],
    ['label, ordinal and default are not part of the answer', { name: 'title', type: 'text', label: 'Title', ordinal: 3, default: 'x' }, { _id: ID, name: 'title', type: 'text', ...flags, ...text }],
    [
      'a file: a record of three fields, uploaded',
      { name: 'scan', type: 'file' },
      {
        _id: ID,
        name: 'scan',
        type: 'file',
        ...flags,
        fields: [
          { name: 'filename', scalar: 'string' },
          { name: 'filesize', scalar: 'number' },
          { name: 'filetype', scalar: 'string' },
        ],
        input: 'upload',
      },
    ],
    ['a counter: numbered by the server', { name: 'no', type: 'counter' }, { _id: ID, name: 'no', type: 'counter', ...flags, ...number, input: 'counter' }],
    ['a url: its string', { name: 'homepage', type: 'url' }, { _id: ID, name: 'homepage', type: 'url', ...flags, ...text }],
    ['no name', { type: 'string' }, undefined],
    ['no type', { name: 'title' }, undefined],
    ['an unknown type', { name: 'title', type: 'hyperlink' }, undefined],
    ['a system property name', { name: '_owner', type: 'reference' }, undefined],
    ['a prototype name', { name: '__proto__', type: 'string' }, undefined],
  ])('%s', (_name, fields, expected) => {
    const described = describeDefinition(definition(0x20, fields));
    expect(described).toEqual(expected);
    // Exactly the keys: no `formula: undefined` left in the JSON.
    if (expected !== undefined) expect(Object.keys(described!).sort()).toEqual(Object.keys(expected).sort());
  });
});

describe('describeSchema', () => {
  const BOOK = 0x10;
  const AUTHOR = 0x11;
  const SECRET = 0x12;
  const OPEN = 0x13;
  const NAMELESS = 0x14;
  const ZEBRA = 0x15;
  const types = [type(ZEBRA, 'book'), type(BOOK, 'book'), type(AUTHOR, 'author'), type(SECRET, 'secret', 'private'), type(OPEN, 'open', 'public'), type(NAMELESS, undefined)];
  const parented: Record<string, Entity[]> = {
    [hexId(BOOK)]: [
      definition(0x30, { name: 'zeta', type: 'string' }),
      definition(0x31, { name: 'alpha', type: 'string' }),
      definition(0x32, { name: 'third', type: 'number', ordinal: 3 }),
      definition(0x33, { name: 'first', type: 'number', ordinal: -1 }),
      definition(0x34, { name: 'second', type: 'date', ordinal: 2.5 }),
      definition(0x35, { name: 'hidden', type: 'string' }, 'private'),
      definition(0x36, { name: 'viewed', type: 'string', ordinal: 10 }, 'private', { _viewer: [val('_viewer', { reference: STRANGER })] }),
      definition(0x37, { name: 'broken' }),
      definition(0x38, { name: '_sharing', type: 'string' }),
    ],
    [hexId(OPEN)]: [definition(0x40, { name: 'pub', type: 'string' }, 'public'), definition(0x41, { name: 'dom', type: 'string' })],
    [hexId(SECRET)]: [definition(0x50, { name: 'x', type: 'string' })],
  };
  const describe_ = (who: Caller) => describeSchema(types, (id) => parented[id] ?? [], who);
  const names = (who: Caller) => describe_(who).types.map((t) => [t._id, t.name, t.properties.map((p) => p.name)]);

  it.each<[string, Caller, Array<[string, string, string[]]>]>([
    [
      'the owner: every named type, by name then _id; properties by ordinal, those without one last by name',
      caller(OWNER),
      [
        [hexId(AUTHOR), 'author', []],
        [hexId(BOOK), 'book', ['first', 'second', 'third', 'viewed', 'alpha', 'hidden', 'zeta']],
        [hexId(ZEBRA), 'book', []],
        [hexId(OPEN), 'open', ['dom', 'pub']],
        [hexId(SECRET), 'secret', ['x']],
      ],
    ],
    [
      'another person: domain and public types, and of them the definitions they may read (a _viewer right included)',
      caller(STRANGER),
      [
        [hexId(AUTHOR), 'author', []],
        [hexId(BOOK), 'book', ['first', 'second', 'third', 'viewed', 'alpha', 'zeta']],
        [hexId(ZEBRA), 'book', []],
        [hexId(OPEN), 'open', ['dom', 'pub']],
      ],
    ],
    ['anonymous: public types only, and of them the public definitions', {}, [[hexId(OPEN), 'open', ['pub']]]],
  ])('%s', (_name, who, expected) => {
    expect(names(who)).toEqual(expected);
  });

  it('answers the wire shape', () => {
    const answer = describe_(caller(OWNER));
    expect(Value.Check(DatabaseSchemaSchema, answer)).toBe(true);
    const property = { _id: hexId(2), name: 'y', type: 'url', list: false, multilingual: false, search: false, mandatory: false, readonly: false, fields: [{ name: 'string', scalar: 'string' }], input: 'value' };
    expect(Value.Check(DatabaseSchemaSchema, { types: [{ _id: hexId(1), name: 'x', properties: [property] }] })).toBe(true);
    // Only the registered types, scalar kinds and input kinds.
    for (const wrong of [{ type: 'hyperlink' }, { fields: [{ name: 'string', scalar: 'text' }] }, { input: 'paste' }, { fields: undefined }, { input: undefined }]) {
      expect(Value.Check(DatabaseSchemaSchema, { types: [{ _id: hexId(1), name: 'x', properties: [{ ...property, ...wrong }] }] })).toBe(false);
    }
  });

  it('an empty database describes no types', () => {
    expect(describeSchema([], () => [], caller(OWNER))).toEqual({ types: [] });
  });
});
