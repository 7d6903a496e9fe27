import { MAX_CREDENTIALS, SYSTEM_DEFINITIONS, applyWrite, type Entity, type ValueInput, type WriteResult } from '@entia/domain';
import {
  EDITOR,
  ENTITY,
  EXPANDER,
  NOW,
  OWNER,
  STRANGER,
  TYPE,
  VIEWER,
  context,
  entityWith,
  hexId,
  thrown,
  val,
} from './fixtures';

const FRIEND = hexId(0xf1);
const PARENT = hexId(0xf2);

// One existing entity for the update tests; built fresh per test so that a mutation would show.
const NAME = hexId(0x101);
const TAG_A = hexId(0x102);
const TAG_B = hexId(0x103);
const TITLE_EN = hexId(0x104);
const TITLE_ET = hexId(0x105);
const NOTE_EN = hexId(0x106);
const KEY = hexId(0x107);

function existing(shape: Parameters<typeof entityWith>[0] = {}, _id = ENTITY): Entity {
  return entityWith(
    {
      ...shape,
      extra: {
        name: [val('name', { string: 'Old name' }, NAME)],
        tags: [val('tags', { string: 'a' }, TAG_A), val('tags', { string: 'b' }, TAG_B)],
        title: [val('title', { string: 'Title', language: 'en' }, TITLE_EN), val('title', { string: 'Pealkiri', language: 'et' }, TITLE_ET)],
        notes: [val('notes', { string: 'A note', language: 'en' }, NOTE_EN)],
        ...shape.extra,
      },
    },
    _id,
  );
}

const update = (personId: string, items: ValueInput[], entity = existing(), more = {}) => applyWrite(entity, items, context(personId, more));
const create = (personId: string, items: ValueInput[], more = {}) => applyWrite(undefined, items, context(personId, more));
const strings = (result: WriteResult, name: string) => result.properties[name]?.map((value) => value.string);
const pointers = (action: () => unknown) => {
  const error = thrown(action);
  expect(error.kind).toBe('invalid');
  return error.errors.map((e) => e.pointer);
};

describe('applyWrite: creating an entity', () => {
  const items: ValueInput[] = [
    { type: '_type', reference: TYPE },
    { type: 'name', string: 'New' },
  ];

  it('stores the values, makes the creator the owner and records when and by whom', () => {
    const result = create(STRANGER, items);
    const { _type, name, _owner, _created, ...rest } = result.properties;
    expect(rest).toEqual({});
    expect(_type).toEqual([expect.objectContaining({ type: '_type', reference: TYPE })]);
    expect(name).toEqual([expect.objectContaining({ type: 'name', string: 'New' })]);
    expect(_owner).toEqual([expect.objectContaining({ type: '_owner', reference: STRANGER })]);
    expect(_created).toEqual([expect.objectContaining({ type: '_created', datetime: NOW, reference: STRANGER })]);
    for (const value of Object.values(result.properties).flat()) {
      expect(value.created).toEqual({ at: NOW, by: STRANGER });
      expect(value._id).toMatch(/^[0-9a-f]{24}$/);
    }
    const ids = Object.values(result.properties).flat().map((value) => value._id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('returns every value it created, the automatic ones included', () => {
    const result = create(STRANGER, items);
    expect(result.written.map((value) => value.type).sort()).toEqual(['_created', '_owner', '_type', 'name']);
    expect(result.removed).toEqual([]);
  });

  it('keeps other owners named on create, and adds the creator once', () => {
    const withOther = create(STRANGER, [...items, { type: '_owner', reference: OWNER }]);
    expect(withOther.properties._owner!.map((v) => v.reference)).toEqual([OWNER, STRANGER]);
    const withSelf = create(STRANGER, [...items, { type: '_owner', reference: STRANGER }]);
    expect(withSelf.properties._owner!.map((v) => v.reference)).toEqual([STRANGER]);
  });

  it('lets the creator set rights and sharing without holding any right yet', () => {
    const result = create(STRANGER, [...items, { type: '_sharing', string: 'public' }, { type: '_viewer', reference: VIEWER }]);
    expect(result.properties._sharing![0]!.string).toBe('public');
    expect(result.properties._viewer![0]!.reference).toBe(VIEWER);
  });

  it('hands every reference, _type and rights included, to be resolved', () => {
    const result = create(STRANGER, [...items, { type: 'friend', reference: FRIEND }, { type: '_parent', reference: PARENT }]);
    expect(result.references).toEqual([
      { pointer: '/0/reference', property: '_type', id: TYPE },
      { pointer: '/2/reference', property: 'friend', id: FRIEND },
      { pointer: '/3/reference', property: '_parent', id: PARENT },
    ]);
  });

  it('needs a _type', () => {
    const error = thrown(() => create(STRANGER, [{ type: 'name', string: 'New' }]));
    expect(error.kind).toBe('invalid');
    expect(error.errors).toEqual([{ pointer: '', message: expect.stringContaining('_type') }]);
    // Said as such, not as "unknown property" for each value (no type: nothing but system properties is known).
    expect(error.message).toContain('An entity needs its _type');
    const untyped = thrown(() => create(STRANGER, [{ type: 'title', string: 'New' }], { definitions: SYSTEM_DEFINITIONS }));
    expect([untyped.message, untyped.errors]).toEqual([expect.stringContaining('An entity needs its _type'), [{ pointer: '', message: expect.stringContaining('_type') }]]);
  });

  it('needs exactly one _type', () => {
    expect(pointers(() => create(STRANGER, [...items, { type: '_type', reference: FRIEND }]))).toEqual(['/2/type']);
  });

  it('refuses _created: the server sets it', () => {
    expect(pointers(() => create(STRANGER, [...items, { type: '_created', datetime: NOW }]))).toEqual(['/2/type']);
  });

  it('refuses an _id on create: there is no value to overwrite', () => {
    expect(pointers(() => create(STRANGER, [...items, { type: 'tags', _id: TAG_A, string: 'x' }]))).toEqual(['/2/_id']);
  });
});

describe('applyWrite: list and non-list properties', () => {
  it('a list property gains a value beside the others', () => {
    const result = update(EDITOR, [{ type: 'tags', string: 'c' }]);
    expect(strings(result, 'tags')).toEqual(['a', 'b', 'c']);
    expect(result.removed).toEqual([]);
    expect(result.written).toEqual([expect.objectContaining({ type: 'tags', string: 'c', created: { at: NOW, by: EDITOR } })]);
  });

  it('a list property gains several values in one write', () => {
    const result = update(EDITOR, [{ type: 'tags', string: 'c' }, { type: 'tags', string: 'c' }]);
    expect(strings(result, 'tags')).toEqual(['a', 'b', 'c', 'c']);
  });

  it('a non-list property has its value replaced, and the old one is gone', () => {
    const result = update(EDITOR, [{ type: 'name', string: 'New name' }]);
    expect(strings(result, 'name')).toEqual(['New name']);
    expect(result.properties.name![0]!._id).not.toBe(NAME);
    expect(result.removed).toEqual([expect.objectContaining({ _id: NAME, string: 'Old name' })]);
  });

  it('a multilingual non-list property is replaced per language', () => {
    const result = update(EDITOR, [{ type: 'title', string: 'New title', language: 'en' }]);
    expect(result.properties.title!.map((v) => [v.language, v.string]).sort()).toEqual([
      ['en', 'New title'],
      ['et', 'Pealkiri'],
    ]);
    expect(result.removed.map((v) => v._id)).toEqual([TITLE_EN]);
  });

  it('a multilingual non-list property gains a language it did not have', () => {
    const result = update(EDITOR, [{ type: 'title', string: 'Otsikko', language: 'fi' }]);
    expect(result.properties.title!.map((v) => v.language).sort()).toEqual(['en', 'et', 'fi']);
    expect(result.removed).toEqual([]);
  });

  it('a multilingual list property adds even in a language it has', () => {
    const result = update(EDITOR, [{ type: 'notes', string: 'Another', language: 'en' }]);
    expect(strings(result, 'notes')).toEqual(['A note', 'Another']);
  });

  it('a multilingual non-list property takes one value per language in one write', () => {
    const result = update(EDITOR, [
      { type: 'title', string: 'T', language: 'en' },
      { type: 'title', string: 'P', language: 'et' },
    ]);
    expect(result.properties.title!.map((v) => v.string).sort()).toEqual(['P', 'T']);
  });

  it.each<[string, ValueInput[]]>([
    ['a non-list property', [{ type: 'name', string: 'one' }, { type: 'name', string: 'two' }]],
    ['_sharing', [{ type: '_sharing', string: 'public' }, { type: '_sharing', string: 'domain' }]],
    ['one language of a multilingual one', [{ type: 'title', string: 'one', language: 'en' }, { type: 'title', string: 'two', language: 'en' }]],
  ])('two values for %s in one write are refused', (_, items) => {
    expect(pointers(() => update(OWNER, items))).toEqual(['/1/type']);
  });
});

describe('applyWrite: overwriting a value by its _id', () => {
  it('keeps the _id, changes the value and records the new writer and time', () => {
    const result = update(EDITOR, [{ type: 'name', _id: NAME, string: 'Renamed' }]);
    expect(result.properties.name).toEqual([{ _id: NAME, type: 'name', string: 'Renamed', created: { at: NOW, by: EDITOR } }]);
    expect(result.written).toEqual(result.properties.name);
    expect(result.removed).toEqual([expect.objectContaining({ _id: NAME, string: 'Old name' })]);
  });

  it('overwrites one value of a list in place, leaving the others', () => {
    const result = update(EDITOR, [{ type: 'tags', _id: TAG_A, string: 'A' }]);
    expect(result.properties.tags!.map((v) => [v._id, v.string])).toEqual([
      [TAG_A, 'A'],
      [TAG_B, 'b'],
    ]);
  });

  it('overwrites one language of a multilingual value', () => {
    const result = update(EDITOR, [{ type: 'title', _id: TITLE_ET, string: 'Uus', language: 'et' }]);
    expect(result.properties.title!.map((v) => [v._id, v.string])).toEqual([
      [TITLE_EN, 'Title'],
      [TITLE_ET, 'Uus'],
    ]);
  });

  it.each<[string, string]>([
    ['a value of another property', TAG_A],
    ['an id of no value', hexId(0xdead)],
    ['a malformed id', 'not-an-id'],
  ])('refuses %s', (_, id) => {
    expect(pointers(() => update(EDITOR, [{ type: 'name', _id: id, string: 'x' }]))).toEqual(['/0/_id']);
  });

  it('refuses the _id of another entity’s value', () => {
    const other = existing({}, hexId(0xe9));
    // Same property name, but this entity's value ids are different.
    const mine = existing({ extra: { name: [val('name', { string: 'Mine' })] } });
    expect(pointers(() => update(EDITOR, [{ type: 'name', _id: other.properties.name![0]!._id, string: 'x' }], mine))).toEqual(['/0/_id']);
  });
});

describe('applyWrite: what cannot be written', () => {
  it.each<[string, ValueInput]>([
    ['an unknown property', { type: 'colour', string: 'red' }],
    ['an unknown system property', { type: '_secret', string: 'x' }],
    ['a property computed by a formula', { type: 'total', number: 4 }],
    ['a read-only property', { type: 'code', string: 'X1' }],
    ['_created', { type: '_created', datetime: NOW }],
    ['_type after create', { type: '_type', reference: TYPE }],
  ])('%s is refused (400), even for the owner', (_, item) => {
    expect(pointers(() => update(OWNER, [item]))).toEqual(['/0/type']);
  });

  it('a bad _sharing is refused', () => {
    expect(pointers(() => update(OWNER, [{ type: '_sharing', string: 'everyone' }]))).toEqual(['/0/string']);
  });

  it('is all or nothing: one bad item and nothing comes back, every bad item listed', () => {
    const entity = existing();
    const before = JSON.parse(JSON.stringify(entity));
    const items: ValueInput[] = [
      { type: 'name', string: 'fine' },
      { type: 'born', date: '2023-02-29' },
      { type: 'tags', string: 'fine' },
      { type: 'count', number: 'three' },
      { type: 'colour', string: 'red' },
      { type: 'total', number: 1 },
      { type: 'title', string: 'no language' },
      { type: 'seen', datetime: '2024-05-01T12:00:00' },
    ];
    const error = thrown(() => update(EDITOR, items, entity));
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((e) => e.pointer)).toEqual(['/1/date', '/3/number', '/4/type', '/5/type', '/6/language', '/7/datetime']);
    expect(entity).toEqual(before);
  });

  it('normalises what it stores: a datetime with an offset is kept in UTC', () => {
    const result = update(EDITOR, [{ type: 'seen', datetime: '2024-05-01T12:00:00+02:00' }]);
    expect(result.properties.seen![0]!.datetime).toBe('2024-05-01T10:00:00.000Z');
  });
});

describe('applyWrite: rights', () => {
  const ordinary: ValueInput[] = [
    { type: 'name', string: 'x' },
    { type: 'tags', string: 'x' },
    { type: 'friend', reference: FRIEND },
    { type: '_parent', reference: PARENT },
    { type: 'name', _id: NAME, string: 'x' },
  ];
  const ownerOnly: ValueInput[] = [
    { type: '_owner', reference: EDITOR },
    { type: '_editor', reference: VIEWER },
    { type: '_expander', reference: VIEWER },
    { type: '_viewer', reference: STRANGER },
    { type: '_sharing', string: 'domain' },
    { type: '_inheritrights', boolean: true },
  ];
  const table = [
    ...ordinary.flatMap((item) => [
      [OWNER, 'owner', item, true],
      [EDITOR, 'editor', item, true],
      [EXPANDER, 'expander', item, false],
      [VIEWER, 'viewer', item, false],
      [STRANGER, 'nobody', item, false],
    ]),
    ...ownerOnly.flatMap((item) => [
      [OWNER, 'owner', item, true],
      [EDITOR, 'editor', item, false],
      [EXPANDER, 'expander', item, false],
      [VIEWER, 'viewer', item, false],
    ]),
  ] as [string, string, ValueInput, boolean][];

  it.each(table)('%#: a caller with %s right writing %j: allowed %s', (personId, _, item, allowed) => {
    if (allowed) {
      expect(update(personId, [item]).written).toHaveLength(1);
    } else {
      const error = thrown(() => update(personId, [item]));
      expect(error.kind).toBe('forbidden');
    }
  });

  it('a forbidden item refuses the whole write, whatever else is in it', () => {
    const error = thrown(() => update(EDITOR, [{ type: 'name', string: 'ok' }, { type: '_sharing', string: 'public' }]));
    expect(error.kind).toBe('forbidden');
  });

  it('an owner may hand the entity over: the only _owner value overwritten to another person', () => {
    const entity = existing();
    const ownerValue = entity.properties._owner![0]!._id;
    const result = update(OWNER, [{ type: '_owner', _id: ownerValue, reference: EDITOR }], entity);
    expect(result.properties._owner!.map((v) => v.reference)).toEqual([EDITOR]);
  });

  it('an entity that has lost every owner can still be edited by its editors', () => {
    const result = update(EDITOR, [{ type: 'name', string: 'still editable' }], existing({ owner: [] }));
    expect(strings(result, 'name')).toEqual(['still editable']);
  });
});

describe("applyWrite: a right value sent under another right moves its person to that level (Entu's rights drawer)", () => {
  const idOf = (entity: Entity, right: string) => entity.properties[right]![0]!._id;
  const holders = (result: WriteResult) =>
    Object.fromEntries(['_owner', '_editor', '_expander', '_viewer'].map((right) => [right, (result.properties[right] ?? []).map((v) => v.reference)]));

  it.each([
    ['a viewer up to editor', '_viewer', '_editor', VIEWER, { _owner: [OWNER], _editor: [EDITOR, VIEWER], _expander: [EXPANDER], _viewer: [] }],
    ['an editor down to viewer', '_editor', '_viewer', EDITOR, { _owner: [OWNER], _editor: [], _expander: [EXPANDER], _viewer: [VIEWER, EDITOR] }],
    ['an expander up to owner', '_expander', '_owner', EXPANDER, { _owner: [OWNER, EXPANDER], _editor: [EDITOR], _expander: [], _viewer: [VIEWER] }],
  ])('%s, in one write: one value removed, one added, the same _id', (_name, from, to, person, expected) => {
    const entity = existing();
    const id = idOf(entity, from);
    const result = update(OWNER, [{ type: to, _id: id, reference: person }], entity);
    expect(holders(result)).toEqual(expected);
    expect(result.removed).toEqual([expect.objectContaining({ _id: id, type: from, reference: person })]);
    expect(result.written).toEqual([expect.objectContaining({ _id: id, type: to, reference: person })]);
  });

  it('the last owner cannot be moved down', () => {
    const entity = existing();
    expect(pointers(() => update(OWNER, [{ type: '_editor', _id: idOf(entity, '_owner'), reference: OWNER }], entity))).toEqual(['']);
  });

  it('one owner of two may step down', () => {
    const entity = existing({ owner: [OWNER, EDITOR], editor: [] });
    const result = update(OWNER, [{ type: '_editor', _id: idOf(entity, '_owner'), reference: OWNER }], entity);
    expect(holders(result)._owner).toEqual([EDITOR]);
    expect(holders(result)._editor).toEqual([OWNER]);
  });

  it('needs the right to write both levels: an editor cannot move anyone (rights are the owners\')', () => {
    const entity = existing();
    expect(thrown(() => update(EDITOR, [{ type: '_editor', _id: idOf(entity, '_viewer'), reference: VIEWER }], entity)).kind).toBe('forbidden');
  });

  it('an inherited right is not moved where it shows', () => {
    const entity = existing();
    entity.properties._viewer = [{ ...entity.properties._viewer![0]!, inherited: true }];
    expect(pointers(() => update(OWNER, [{ type: '_editor', _id: idOf(entity, '_viewer'), reference: VIEWER }], entity))).toEqual(['/0/_id']);
  });

  it('the same value moved twice in one write is refused', () => {
    const entity = existing();
    const id = idOf(entity, '_viewer');
    expect(pointers(() => update(OWNER, [{ type: '_editor', _id: id, reference: VIEWER }, { type: '_expander', _id: id, reference: VIEWER }], entity))).toEqual(['/1/_id']);
  });

  it('a value of a property that is no right is not moved into one', () => {
    expect(pointers(() => update(OWNER, [{ type: '_editor', _id: NAME, reference: VIEWER }]))).toEqual(['/0/_id']);
  });

  it('a right moved to _noaccess denies its person, in one write; moved back, it is a right again', () => {
    const entity = existing();
    const id = idOf(entity, '_viewer');
    const denied = update(OWNER, [{ type: '_noaccess', _id: id, reference: VIEWER }], entity);
    expect(holders(denied)._viewer).toEqual([]);
    expect(denied.properties._noaccess!.map((v) => [v._id, v.reference])).toEqual([[id, VIEWER]]);
    const restored = update(OWNER, [{ type: '_viewer', _id: id, reference: VIEWER }], { ...entity, properties: denied.properties });
    expect(holders(restored)._viewer).toEqual([VIEWER]);
    expect(restored.properties._noaccess).toBeUndefined();
  });

  it('the last owner can be neither moved to _noaccess nor denied beside their right; one of two can', () => {
    const entity = existing();
    expect(pointers(() => update(OWNER, [{ type: '_noaccess', _id: idOf(entity, '_owner'), reference: OWNER }], entity))).toEqual(['']);
    expect(pointers(() => update(OWNER, [{ type: '_noaccess', reference: OWNER }], entity))).toEqual(['']);
    const two = existing({ owner: [OWNER, EDITOR], editor: [] });
    expect(update(OWNER, [{ type: '_noaccess', reference: EDITOR }], two).properties._noaccess!.map((v) => v.reference)).toEqual([EDITOR]);
  });

  it('only owners deny', () => {
    expect(thrown(() => update(EDITOR, [{ type: '_noaccess', reference: VIEWER }], existing())).kind).toBe('forbidden');
  });
});

describe('applyWrite: API keys', () => {
  const PERSON = hexId(0xc1);
  const person = (more: Parameters<typeof existing>[0] = {}) =>
    existing({ owner: [OWNER], editor: [EDITOR], ...more, extra: { _api_key: [val('_api_key', { string: 'stored-hash' }, KEY)] } }, PERSON);
  const asPerson = { isPerson: true };

  it('generates a key: plain text in the response once, only its hash stored', () => {
    const result = update(OWNER, [{ type: '_api_key' }], person(), asPerson);
    const written = result.written[0]!;
    expect(result.written).toHaveLength(1);
    expect(written).toEqual({ _id: expect.any(String), type: '_api_key', string: 'plain-key-1', created: { at: NOW, by: OWNER } });
    const stored = result.properties._api_key!.find((v) => v._id === written._id)!;
    expect(stored.string).toBe('hash-of-key-1');
    expect(JSON.stringify(result.properties)).not.toContain('plain-key');
    expect(result.credentials).toEqual([{ valueId: written._id, property: '_api_key', subject: 'hash-of-key-1' }]);
    expect(result.properties._api_key!.map((v) => v._id)).toEqual([KEY, written._id]);
  });

  it('generates a distinct key for each request item', () => {
    const result = update(OWNER, [{ type: '_api_key' }, { type: '_api_key' }], person(), asPerson);
    expect(result.written.map((v) => v.string)).toEqual(['plain-key-1', 'plain-key-2']);
    expect(new Set(result.credentials.map((k) => k.valueId)).size).toBe(2);
  });

  it('the person themselves may add a key without any right on their entity', () => {
    const result = update(PERSON, [{ type: '_api_key' }], person(), asPerson);
    expect(result.credentials).toHaveLength(1);
    expect(result.written[0]!.created.by).toBe(PERSON);
  });

  it('the person themselves still needs rights for anything else on their entity', () => {
    expect(thrown(() => update(PERSON, [{ type: 'name', string: 'me' }], person(), asPerson)).kind).toBe('forbidden');
  });

  it.each([EDITOR, EXPANDER, VIEWER, STRANGER])('%s, not an owner nor the person, may not add a key', (personId) => {
    expect(thrown(() => update(personId, [{ type: '_api_key' }], person(), asPerson)).kind).toBe('forbidden');
  });

  it('another person’s entity is not “their own”: an editor of it may not add a key', () => {
    expect(thrown(() => update(EDITOR, [{ type: '_api_key' }], person(), asPerson)).kind).toBe('forbidden');
  });

  it('exists only on persons', () => {
    expect(pointers(() => update(OWNER, [{ type: '_api_key' }], person(), { isPerson: false }))).toEqual(['/0/type']);
    expect(pointers(() => create(OWNER, [{ type: '_type', reference: TYPE }, { type: '_api_key' }]))).toEqual(['/1/type']);
  });

  it('may be generated when a person is created', () => {
    const result = create(OWNER, [{ type: '_type', reference: TYPE }, { type: '_api_key' }], asPerson);
    expect(result.written.find((v) => v.type === '_api_key')!.string).toBe('plain-key-1');
    expect(result.properties._api_key![0]!.string).toBe('hash-of-key-1');
  });

  it.each<[string, ValueInput, string]>([
    ['a chosen key', { type: '_api_key', string: 'my-own-key' }, '/0/string'],
    ['a number', { type: '_api_key', number: 1 }, '/0/number'],
    ['an empty string', { type: '_api_key', string: '' }, '/0/string'],
    ['a reference', { type: '_api_key', reference: FRIEND }, '/0/reference'],
    ['a file field', { type: '_api_key', filename: 'key.txt' }, '/0/filename'],
    ['a language', { type: '_api_key', language: 'en' }, '/0/language'],
    ['an _id (overwriting a key)', { type: '_api_key', _id: KEY }, '/0/_id'],
  ])('is refused with %s', (_, item, pointer) => {
    expect(pointers(() => update(OWNER, [item], person(), asPerson))).toEqual([pointer]);
  });

  it('the person themselves cannot overwrite their key either', () => {
    expect(pointers(() => update(PERSON, [{ type: '_api_key', _id: KEY }], person(), asPerson))).toEqual(['/0/_id']);
  });

  // Issue 14: a person may not mint credentials without end.
  it.each<[string, number, number, string[]]>([
    ['up to the maximum in one write', 1, MAX_CREDENTIALS - 1, []],
    ['one past it', 1, MAX_CREDENTIALS, [`/${MAX_CREDENTIALS - 1}/type`]],
    ['any at all once full', MAX_CREDENTIALS, 1, ['/0/type']],
    ['several past it, each named', MAX_CREDENTIALS - 1, 3, ['/1/type', '/2/type']],
  ])('holds at most MAX_CREDENTIALS keys: %s', (_, held, asked, refused) => {
    const keys = Array.from({ length: held }, (_, i) => val('_api_key', { string: `stored-${i}` }));
    const holder = existing({ owner: [OWNER], extra: { _api_key: keys } }, PERSON);
    const items: ValueInput[] = Array.from({ length: asked }, () => ({ type: '_api_key' }));
    for (const personId of [OWNER, PERSON]) {
      if (refused.length === 0) expect(update(personId, items, holder, asPerson).properties._api_key).toHaveLength(held + asked);
      else expect(pointers(() => update(personId, items, holder, asPerson))).toEqual(refused);
    }
  });

  it('holds at most MAX_CREDENTIALS keys when a person is created too', () => {
    const items: ValueInput[] = [{ type: '_type', reference: TYPE }, ...Array.from({ length: MAX_CREDENTIALS + 1 }, () => ({ type: '_api_key' }))];
    expect(pointers(() => create(OWNER, items, asPerson))).toEqual([`/${MAX_CREDENTIALS + 1}/type`]);
  });
});
