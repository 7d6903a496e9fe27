import {
  MAX_FORMULAS_PER_TYPE,
  SYSTEM_DEFINITIONS,
  VALUE_TYPES,
  checkDefinition,
  checkSiblings,
  definitionFrom,
  definitionOf,
  isSystemProperty,
  type Properties,
  type Value,
} from '@entia/domain';
import { def, hexId, val } from './fixtures';

/** A property entity's own properties, from plain fields (strings and booleans). */
function definitionEntity(fields: Record<string, string | boolean>): Properties {
  const properties: Properties = {};
  for (const [name, data] of Object.entries(fields)) {
    const value: Partial<Value> = typeof data === 'boolean' ? { boolean: data } : { string: data };
    properties[name] = [val(name, value)];
  }
  return properties;
}

describe('definitionFrom', () => {
  it('reads a minimal definition with every flag off, editor to write', () => {
    expect(definitionFrom(definitionEntity({ name: 'title', type: 'string' }))).toEqual({
      name: 'title',
      type: 'string',
      list: false,
      multilingual: false,
      search: false,
      mandatory: false,
      readonly: false,
      writeRight: 'editor',
    });
  });

  it('reads the flags, reference_query and formula', () => {
    const properties = definitionEntity({
      name: 'author',
      type: 'reference',
      list: true,
      multilingual: true,
      search: true,
      mandatory: true,
      readonly: true,
      reference_query: '_type.reference=5f1d7a0c9b1e8a0012345678',
      formula: 'a b CONCAT',
    });
    expect(definitionFrom(properties)).toEqual({
      name: 'author',
      type: 'reference',
      list: true,
      multilingual: true,
      search: true,
      mandatory: true,
      readonly: true,
      referenceQuery: '_type.reference=5f1d7a0c9b1e8a0012345678',
      formula: 'a b CONCAT',
      writeRight: 'editor',
    });
  });

  it('a flag set to false is off', () => {
    expect(definitionFrom(definitionEntity({ name: 'x', type: 'number', list: false }))!.list).toBe(false);
  });

  it.each(VALUE_TYPES)('accepts type %s', (type) => {
    expect(definitionFrom(definitionEntity({ name: 'x', type }))!.type).toBe(type);
  });

  it.each<[string, Record<string, string | boolean>]>([
    ['no name', { type: 'string' }],
    ['no type', { name: 'x' }],
    ['an unknown type', { name: 'x', type: 'integer' }],
    ['a system name', { name: '_type', type: 'reference' }],
    ['a name that is not a property name', { name: 'first name', type: 'string' }],
  ])('is undefined for %s', (_, fields) => {
    expect(definitionFrom(definitionEntity(fields))).toBeUndefined();
  });
});

describe('checkDefinition', () => {
  it.each<Record<string, string | boolean>>([
    { name: 'title', type: 'string' },
    { name: 'x'.padEnd(64, 'y'), type: 'file', list: true },
    { name: 'author', type: 'reference', reference_query: '_type.reference=5f1d7a0c9b1e8a0012345678' },
  ])('accepts %j', (fields) => {
    expect(checkDefinition(definitionEntity(fields))).toEqual([]);
  });

  it.each<[string, Record<string, string | boolean>, RegExp[]]>([
    ['no name', { type: 'string' }, [/needs a name/]],
    ['no type', { name: 'x' }, [/needs a type/]],
    ['neither', {}, [/needs a name/, /needs a type/]],
    ['an unknown type', { name: 'x', type: 'integer' }, [/must be one of/]],
    ['a system name', { name: '_secret', type: 'string' }, [/must match/]],
    ['a name too long', { name: 'x'.padEnd(65, 'y'), type: 'string' }, [/must match/]],
    ['a reference_query on a string property', { name: 'x', type: 'string', reference_query: 'a.string=b' }, [/only allowed on reference/]],
  ])('refuses %s', (_, fields, messages) => {
    const errors = checkDefinition(definitionEntity(fields));
    expect(errors.map((e) => e.message)).toEqual(messages.map((m) => expect.stringMatching(m)));
  });

  it('a definition checkDefinition accepts is one definitionFrom reads', () => {
    for (const type of VALUE_TYPES) {
      const properties = definitionEntity({ name: 'x', type });
      expect(checkDefinition(properties)).toEqual([]);
      expect(definitionFrom(properties)).toBeDefined();
    }
  });
});

describe('system definitions', () => {
  it('every system property starts with "_", and every "_" name is system', () => {
    for (const name of SYSTEM_DEFINITIONS.keys()) expect(isSystemProperty(name)).toBe(true);
    expect(isSystemProperty('name')).toBe(false);
  });

  it.each<[string, string, boolean, string]>([
    ['_type', 'reference', false, 'owner'],
    ['_parent', 'reference', true, 'editor'],
    ['_created', 'datetime', false, 'owner'],
    ['_sharing', 'string', false, 'owner'],
    ['_owner', 'reference', true, 'owner'],
    ['_editor', 'reference', true, 'owner'],
    ['_expander', 'reference', true, 'owner'],
    ['_viewer', 'reference', true, 'owner'],
    ['_inheritrights', 'boolean', false, 'owner'],
    ['_api_key', 'string', true, 'owner'],
  ])('%s is a %s (list %s), written by the %s right', (name, type, list, writeRight) => {
    expect(SYSTEM_DEFINITIONS.get(name)).toEqual(expect.objectContaining({ type, list, writeRight, multilingual: false }));
  });

  it('_created is read-only', () => {
    expect(SYSTEM_DEFINITIONS.get('_created')!.readonly).toBe(true);
  });

  it('definitionOf prefers the system definition and falls back to the type’s own', () => {
    const own = new Map([
      ['name', def('name', 'string')],
      ['_owner', def('_owner', 'string')],
    ]);
    expect(definitionOf('name', own)).toBe(own.get('name'));
    expect(definitionOf('_owner', own)).toBe(SYSTEM_DEFINITIONS.get('_owner'));
    expect(definitionOf('colour', own)).toBeUndefined();
    expect(definitionOf('_colour', own)).toBeUndefined();
  });
});

describe('checkSiblings: a definition among the others of its type', () => {
  const entity = (id: number, fields: Record<string, string | boolean>) => ({ _id: hexId(id), properties: definitionEntity(fields) });
  const formulas = (count: number, from = 100) =>
    Array.from({ length: count }, (_, i) => entity(from + i, { name: `f${i}`, type: 'number', formula: `${i}` }));

  it.each<[string, ReturnType<typeof entity>, ReturnType<typeof entity>[], string[]]>([
    ['a new name beside others', entity(1, { name: 'title', type: 'string' }), [entity(2, { name: 'pages', type: 'number' })], []],
    ['a name taken by another', entity(1, { name: 'title', type: 'string' }), [entity(2, { name: 'title', type: 'number' })], ['the type already defines "title"']],
    ['itself among the siblings (a rewrite)', entity(1, { name: 'title', type: 'string' }), [entity(1, { name: 'title', type: 'string' })], []],
    ['names differing in case', entity(1, { name: 'Title', type: 'string' }), [entity(2, { name: 'title', type: 'string' })], []],
    ['a prototype-member name beside nothing', entity(1, { name: 'constructor', type: 'string' }), [], []],
    ['a formula with room left', entity(1, { name: 'x', type: 'number', formula: '1' }), formulas(MAX_FORMULAS_PER_TYPE - 1), []],
    [
      'a formula past the limit',
      entity(1, { name: 'x', type: 'number', formula: '1' }),
      formulas(MAX_FORMULAS_PER_TYPE),
      [`a type has at most ${MAX_FORMULAS_PER_TYPE} formulas, and this one has ${MAX_FORMULAS_PER_TYPE} already`],
    ],
    ['one of the formulas rewritten at the limit', formulas(MAX_FORMULAS_PER_TYPE)[0]!, formulas(MAX_FORMULAS_PER_TYPE), []],
    ['a definition without a formula at the limit', entity(1, { name: 'x', type: 'number' }), formulas(MAX_FORMULAS_PER_TYPE), []],
    ['over the limit already (written before it), no formula', entity(1, { name: 'x', type: 'number' }), formulas(MAX_FORMULAS_PER_TYPE + 5), []],
  ])('%s', (_name, definition, siblings, messages) => {
    expect(checkSiblings(definition, siblings).map((error) => error.message)).toEqual(messages);
  });
});
