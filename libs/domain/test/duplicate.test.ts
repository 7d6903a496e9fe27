import { applyWrite, checkDuplicate, copiedValues, copyDefinitions, type MetaTypes, type ValueInput } from '@entia/domain';
import { DEFINITIONS, OWNER, TYPE, VIEWER, context, entityWith, hexId, thrown, val } from './fixtures';

/** Duplicate (docs/decisions.md "Duplicate"): which values a copy is created from, which requests are refused. */

const meta: MetaTypes = { entity: hexId(0x301), property: hexId(0x302), person: hexId(0x303), database: hexId(0x304) };
const PARENT = hexId(0x401);
const FRIEND = hexId(0x402);

/** A source with one value of most kinds, rights of every kind, an inherited right, a formula value and an API key. */
const source = entityWith({
  sharing: 'domain',
  extra: {
    _parent: [val('_parent', { reference: PARENT, string: 'Parent label' })],
    _inheritrights: [val('_inheritrights', { boolean: true })],
    _created: [val('_created', { datetime: '2024-01-01T00:00:00.000Z', reference: OWNER })],
    _api_key: [val('_api_key', { string: 'hash' })],
    _viewer: [val('_viewer', { reference: VIEWER }), val('_viewer', { reference: hexId(0xa9), inherited: true })],
    name: [val('name', { string: 'Dune' })],
    tags: [val('tags', { string: 'a' }), val('tags', { string: 'b' })],
    title: [val('title', { string: 'Düün', language: 'et' }), val('title', { string: 'Dune', language: 'en' })],
    count: [val('count', { number: 3 })],
    total: [val('total', { number: 6 })],
    friend: [val('friend', { reference: FRIEND, string: 'Friend label' })],
    photo: [val('photo', { filename: 'a.png', filesize: 10, filetype: 'image/png' })],
    code: [val('code', { string: 'R-1' })],
    gone: [val('gone', { string: 'a property the type no longer defines' })],
  },
});

const items = (ignored: string[] = []) => copiedValues(source, DEFINITIONS, ignored).map(({ item }) => item);

describe('copiedValues: what a copy is created from', () => {
  it.each<[string, ValueInput[]]>([
    ['_type, kept', [{ type: '_type', reference: TYPE }]],
    ['_parent, without its label', [{ type: '_parent', reference: PARENT }]],
    ['_sharing and _inheritrights, copied', [{ type: '_sharing', string: 'domain' }, { type: '_inheritrights', boolean: true }]],
    ['a list, every value in order', [{ type: 'tags', string: 'a' }, { type: 'tags', string: 'b' }]],
    ['a multilingual property, each language', [{ type: 'title', string: 'Düün', language: 'et' }, { type: 'title', string: 'Dune', language: 'en' }]],
    ['a reference, without its label', [{ type: 'friend', reference: FRIEND }]],
    ['a file value, its three fields', [{ type: 'photo', filename: 'a.png', filesize: 10, filetype: 'image/png' }]],
    ['a read-only value', [{ type: 'code', string: 'R-1' }]],
  ])('copies %s', (_name, expected) => {
    for (const item of expected) expect(items()).toContainEqual(item);
  });

  it.each<[string, string]>([
    ['_created (the copy has its own)', '_created'],
    ['_owner (the caller becomes the sole owner)', '_owner'],
    ['_editor', '_editor'],
    ['_expander', '_expander'],
    ['_viewer, explicit or inherited', '_viewer'],
    ['_api_key (a credential)', '_api_key'],
    ['a formula value (computed by the create)', 'total'],
    ['a property the type no longer defines', 'gone'],
  ])('does not copy %s', (_name, property) => {
    expect(items().filter((item) => item.type === property)).toEqual([]);
  });

  it.each<[string, string[], string]>([
    ['user property', ['tags'], 'tags'],
    ['_parent', ['_parent'], '_parent'],
    ['_sharing', ['_sharing'], '_sharing'],
  ])('leaves out an ignored %s', (_name, ignored, property) => {
    expect(items(ignored).filter((item) => item.type === property)).toEqual([]);
    expect(items(ignored).some((item) => item.type === 'name')).toBe(true);
  });

  it('pairs each item with the source value it copies (a file value\'s object is copied from it)', () => {
    const photo = copiedValues(source, DEFINITIONS, []).find(({ item }) => item.type === 'photo')!;
    expect(photo.source).toBe(source.properties.photo![0]);
  });

  it('gives items a create accepts: the copy is written under the create rules, read-only lifted', () => {
    const result = applyWrite(undefined, items(), context(VIEWER, { definitions: copyDefinitions(DEFINITIONS) }));
    expect(result.properties._owner!.map((v) => v.reference)).toEqual([VIEWER]);
    expect(result.properties._viewer).toBeUndefined();
    expect(result.properties.code!.map((v) => v.string)).toEqual(['R-1']);
    expect(result.properties._created![0]!.reference).toBe(VIEWER);
    const ids = Object.values(result.properties).flat().map((v) => v._id);
    const sourceIds = new Set(Object.values(source.properties).flat().map((v) => v._id));
    expect(ids.filter((id) => sourceIds.has(id))).toEqual([]);
  });

  it('leaves the definitions it is given alone (read-only holds for every other write)', () => {
    copyDefinitions(DEFINITIONS);
    expect(DEFINITIONS.get('code')!.readonly).toBe(true);
    expect(thrown(() => applyWrite(undefined, items(), context(OWNER))).errors.map((e) => e.message)).toContain('"code" is read-only');
  });
});

describe('checkDuplicate: which requests are refused (400)', () => {
  const check = (count: number, ignoredProperties: string[], entity = source) => () => checkDuplicate(entity, DEFINITIONS, meta, { count, ignoredProperties });

  it.each<[string, number, string[]]>([
    ['one copy', 1, []],
    ['a hundred', 100, []],
    ['ignoring user and system properties', 2, ['tags', '_parent', '_sharing', '_owner', 'total']],
    ['ignoring a known property the source has no value of', 1, ['born']],
  ])('accepts %s', (_name, count, ignored) => {
    expect(check(count, ignored)).not.toThrow();
  });

  it.each<[string, number, string[], string]>([
    ['count 0', 0, [], '/count'],
    ['count 101', 101, [], '/count'],
    ['a fractional count', 1.5, [], '/count'],
    ['a negative count', -3, [], '/count'],
    ['an unknown property', 1, ['nope'], '/ignoredProperties/0'],
    ['a name of the prototype', 1, ['name', '__proto__'], '/ignoredProperties/1'],
    ['constructor', 1, ['constructor'], '/ignoredProperties/0'],
    ['_type', 1, ['_type'], '/ignoredProperties/0'],
  ])('refuses %s', (_name, count, ignored, pointer) => {
    const error = thrown(check(count, ignored));
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((e) => e.pointer)).toContain(pointer);
  });

  it.each<[string, string]>([
    ['a type', meta.entity],
    ['a property definition', meta.property],
  ])('refuses duplicating %s', (_name, type) => {
    const error = thrown(check(1, [], entityWith({ type })));
    expect(error.kind).toBe('invalid');
    expect(error.message).toMatch(/not duplicated/);
  });

  it('accepts duplicating a person (its API keys are not copied)', () => {
    expect(check(1, [], entityWith({ type: meta.person }))).not.toThrow();
  });
});
