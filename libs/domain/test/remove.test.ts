import { findValue, removeValue, type Entity } from '@entia/domain';
import { DEFINITIONS, EDITOR, ENTITY, EXPANDER, OWNER, STRANGER, VIEWER, caller, entityWith, hexId, thrown, val } from './fixtures';

const NAME = hexId(0x201);
const TAG_A = hexId(0x202);
const TAG_B = hexId(0x203);
const PARENT = hexId(0x204);
const SHARING = hexId(0x205);
const INHERIT = hexId(0x206);
const KEY = hexId(0x207);
const PERSON = hexId(0xc1);

function entity(shape: Parameters<typeof entityWith>[0] = {}, _id = ENTITY): Entity {
  return entityWith(
    {
      ...shape,
      extra: {
        name: [val('name', { string: 'Name' }, NAME)],
        tags: [val('tags', { string: 'a' }, TAG_A), val('tags', { string: 'b' }, TAG_B)],
        _parent: [val('_parent', { reference: hexId(0xf2) }, PARENT)],
        _sharing: [val('_sharing', { string: 'domain' }, SHARING)],
        _inheritrights: [val('_inheritrights', { boolean: true }, INHERIT)],
        ...shape.extra,
      },
    },
    _id,
  );
}

const remove = (personId: string, valueId: string, target = entity(), definitions = DEFINITIONS) =>
  removeValue(target, valueId, caller(personId), definitions);
const idOf = (target: Entity, name: string, index = 0) => target.properties[name]![index]!._id;

describe('removeValue', () => {
  it('removes the value and returns it, leaving the entity it was given untouched', () => {
    const target = entity();
    const before = JSON.parse(JSON.stringify(target));
    const { properties, removed } = remove(EDITOR, TAG_A, target);
    expect(removed).toEqual(expect.objectContaining({ _id: TAG_A, string: 'a' }));
    expect(properties.tags!.map((v) => v._id)).toEqual([TAG_B]);
    expect(properties.name).toEqual(target.properties.name);
    expect(target).toEqual(before);
  });

  it('drops the property once its last value is removed', () => {
    const { properties } = remove(EDITOR, NAME);
    expect(properties).not.toHaveProperty('name');
    expect(findValue(properties, NAME)).toBeUndefined();
  });

  it('refuses an id that is no value of this entity', () => {
    expect(thrown(() => remove(OWNER, hexId(0xdead))).kind).toBe('invalid');
  });

  it.each(['_type', '_created'])('refuses to delete %s (400), even for the owner', (name) => {
    const target = entity({ extra: { _created: [val('_created', { datetime: '2024-01-01T00:00:00.000Z', reference: OWNER })] } });
    expect(thrown(() => remove(OWNER, idOf(target, name), target)).kind).toBe('invalid');
  });
});

describe('removeValue: rights', () => {
  const ordinary: [string, string][] = [
    ['name', NAME],
    ['tags', TAG_A],
    ['_parent', PARENT],
  ];
  const target = entity({ owner: [OWNER, hexId(0xa9)] });
  const ownerOnly: [string, string][] = [
    ['_owner', idOf(target, '_owner', 1)],
    ['_editor', idOf(target, '_editor')],
    ['_expander', idOf(target, '_expander')],
    ['_viewer', idOf(target, '_viewer')],
    ['_sharing', SHARING],
    ['_inheritrights', INHERIT],
  ];
  const table = [
    ...ordinary.flatMap(([name, id]) => [
      [OWNER, 'owner', name, id, true],
      [EDITOR, 'editor', name, id, true],
      [EXPANDER, 'expander', name, id, false],
      [VIEWER, 'viewer', name, id, false],
      [STRANGER, 'nobody', name, id, false],
    ]),
    ...ownerOnly.flatMap(([name, id]) => [
      [OWNER, 'owner', name, id, true],
      [EDITOR, 'editor', name, id, false],
      [EXPANDER, 'expander', name, id, false],
      [VIEWER, 'viewer', name, id, false],
    ]),
  ] as [string, string, string, string, boolean][];

  it.each(table)('%#: a caller with %s right deleting %s: allowed %s', (personId, _, name, id, allowed) => {
    if (allowed) {
      expect(remove(personId, id, target).removed.type).toBe(name);
    } else {
      expect(thrown(() => remove(personId, id, target)).kind).toBe('forbidden');
    }
  });

  it('a value of a property the type no longer defines needs the editor right', () => {
    expect(remove(EDITOR, NAME, entity(), new Map()).removed._id).toBe(NAME);
    expect(thrown(() => remove(VIEWER, NAME, entity(), new Map())).kind).toBe('forbidden');
  });
});

describe('removeValue: owners', () => {
  it('the last _owner cannot be removed, not even by that owner', () => {
    const target = entity();
    const error = thrown(() => remove(OWNER, idOf(target, '_owner'), target));
    expect(error.kind).toBe('invalid');
    expect(error.message).toMatch(/last _owner/);
  });

  it('one of two owners can be removed, by either', () => {
    const target = entity({ owner: [OWNER, EDITOR] });
    const { properties } = remove(EDITOR, idOf(target, '_owner', 0), target);
    expect(properties._owner!.map((v) => v.reference)).toEqual([EDITOR]);
  });

  it('an entity that has lost every owner still lets its editors delete values', () => {
    expect(remove(EDITOR, NAME, entity({ owner: [] })).removed._id).toBe(NAME);
  });
});

describe('removeValue: API keys', () => {
  const person = () => entity({ owner: [OWNER], extra: { _api_key: [val('_api_key', { string: 'hash' }, KEY)] } }, PERSON);

  it('the person themselves may revoke their key without any right on their entity', () => {
    const { properties, removed } = remove(PERSON, KEY, person());
    expect(removed._id).toBe(KEY);
    expect(properties).not.toHaveProperty('_api_key');
  });

  it('an owner of the person may revoke it', () => {
    expect(remove(OWNER, KEY, person()).removed._id).toBe(KEY);
  });

  it.each([EDITOR, EXPANDER, VIEWER, STRANGER])('%s may not', (personId) => {
    expect(thrown(() => remove(personId, KEY, person())).kind).toBe('forbidden');
  });

  it('the person themselves may delete nothing else without rights', () => {
    expect(thrown(() => remove(PERSON, NAME, person())).kind).toBe('forbidden');
  });
});
