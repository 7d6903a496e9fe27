import { compileSchema } from '@entia/entities';
import type { Entity, Value } from '@entia/domain';

/** The schema a cache holds: compiled once from the type and definition entities of a database. */

const id = (n: number) => n.toString(16).padStart(24, '0');
let values = 0x100;
const value = (type: string, data: Partial<Value>): Value => ({ _id: id(values++), type, ...data, created: { at: '2024-01-01T00:00:00.000Z', by: id(1) } });
const BOOK = id(0x10);
const SHELF = id(0x11);
const type = (_id: string, name: string): Entity => ({ _id, properties: { name: [value('name', { string: name })] } });
const definition = (n: number, parent: string, fields: Record<string, string | boolean>): Entity => ({
  _id: id(n),
  properties: {
    _parent: [value('_parent', { reference: parent })],
    ...Object.fromEntries(Object.entries(fields).map(([name, data]) => [name, [value(name, typeof data === 'boolean' ? { boolean: data } : { string: data })]])),
  },
});

const schema = compileSchema(
  [type(BOOK, 'book'), type(SHELF, 'shelf')],
  [
    definition(0x20, BOOK, { name: 'title', type: 'string', search: true }),
    definition(0x21, BOOK, { name: 'pages', type: 'number' }),
    definition(0x22, SHELF, { name: 'pages', type: 'string' }),
    definition(0x23, SHELF, { name: 'total', type: 'number', formula: '_child.book.pages SUM' }),
  ],
);

describe('compileSchema', () => {
  it('names the types', () => {
    expect(schema.typeNames).toEqual(new Map([[BOOK, 'book'], [SHELF, 'shelf']]));
  });

  it('compiles each type: definitions, parsed formulas, searchable properties', () => {
    expect([...schema.typeOf(BOOK).definitions.keys()]).toEqual(['title', 'pages']);
    expect([...schema.typeOf(BOOK).searchable]).toEqual(['title']);
    expect(schema.typeOf(SHELF).formulas.map((f) => f.definition.name)).toEqual(['total']);
    expect(schema.definitionsOf(SHELF)).toBe(schema.typeOf(SHELF).definitions);
  });

  it('an unknown or missing type has nothing', () => {
    expect(schema.typeOf(id(0x99)).definitions.size).toBe(0);
    expect(schema.typeOf(undefined).formulas).toEqual([]);
  });

  it('collects every formula path of the database', () => {
    expect(schema.paths).toEqual([expect.objectContaining({ kind: 'child', type: 'book', property: 'pages' })]);
  });

  it.each<[string, string[] | undefined, Record<string, string[]>]>([
    ['of the types a query names', [BOOK], { title: ['string'], pages: ['number'] }],
    ['of every type when none is named', undefined, { title: ['string'], pages: ['number', 'string'], total: ['number'] }],
    ['of no type for an unknown one', [id(0x99)], {}],
  ])('property types %s', (_name, types, expected) => {
    const found = Object.fromEntries([...schema.propertyTypes(types)].map(([name, set]) => [name, [...set].sort()]));
    expect(found).toEqual(expected);
  });
});
