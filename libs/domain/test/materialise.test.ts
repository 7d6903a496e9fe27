import { compileType, indexOf, materialise, newProperties, type FormulaPath, type Properties } from '@entia/domain';
import { ENTITY, NOW, OWNER, STRANGER, counter, def, hexId, val } from './fixtures';

/** `materialise`: the one place a stored entity is built, for a write and for a refresh. */

const stamp = { at: NOW, by: OWNER };
const ACME = hexId(0xc1);
const GONE = hexId(0xc2);
const PARENT = hexId(0xc3);
const props = (entries: Record<string, ReturnType<typeof val>[]>): Properties => newProperties(Object.entries(entries));

const type = compileType(
  new Map([
    ['customer', def('customer', 'reference')],
    ['count', def('count', 'number')],
    ['double', def('double', 'number', { formula: 'count 2 MULTIPLY' })],
    ['total', def('total', 'number', { formula: '_child.row.amount SUM' })],
    ['name', def('name', 'string', { search: true })],
  ]),
);

const readable = [val('_sharing', { string: 'domain' })];
const targets = new Map<string, Properties>([
  [ACME, props({ name: [val('name', { string: 'Acme' })], _sharing: readable })],
  [PARENT, props({ _owner: [val('_owner', { reference: STRANGER })], _sharing: readable })],
  // Persons it names exist too: a refresh drops only references to entities that are gone.
  [OWNER, props({})],
  [STRANGER, props({})],
]);
const entity = {
  _id: ENTITY,
  properties: props({
    _owner: [val('_owner', { reference: OWNER })],
    _parent: [val('_parent', { reference: PARENT })],
    _inheritrights: [val('_inheritrights', { boolean: true })],
    customer: [val('customer', { reference: ACME }), val('customer', { reference: GONE })],
    count: [val('count', { number: 4 })],
  }),
};
const children = (path: FormulaPath) => (path.kind === 'child' ? [10, 2.5] : []);

describe('materialise for a write (no reads)', () => {
  const stored = materialise({ entity, type, targets, stamp, newId: counter() });

  it('labels the references it has targets for, and computes the formulas reading the entity alone', () => {
    expect(stored.entity.properties.customer!.map((v) => v.string)).toEqual(['Acme', undefined]);
    expect(stored.entity.properties.double![0]!.number).toBe(8);
    expect(stored.entity.properties.total).toBeUndefined();
    expect(stored.computed.map((v) => v.type)).toEqual(['double']);
  });

  it('leaves the rest to the refresh: no reference dropped, no right inherited', () => {
    expect(stored.entity.properties.customer).toHaveLength(2);
    expect(stored.entity.properties._owner!.map((v) => v.reference)).toEqual([OWNER]);
  });

  it('gives the store its index entries, searching the searchable properties of its type only', () => {
    expect(stored.index).toEqual(indexOf(stored.entity, new Set(['name'])));
    expect(stored.index.read).toContain(OWNER);
    // The customer's label is not searchable.
    expect(stored.index.search).toEqual([]);
  });
});

describe('materialise for a refresh (with reads)', () => {
  const stored = materialise({ entity, type, targets, stamp, newId: counter(), reads: { resolve: (_holder, path) => children(path) } });

  it('drops references to entities that are gone', () => {
    expect(stored.entity.properties.customer!.map((v) => v.reference)).toEqual([ACME]);
  });

  it('inherits its parents rights', () => {
    expect(stored.entity.properties._owner!.map((v) => [v.reference, v.inherited ?? false])).toEqual([
      [OWNER, false],
      [STRANGER, true],
    ]);
  });

  it('computes every formula, those reading other entities too', () => {
    expect(stored.entity.properties.total![0]!.number).toBe(12.5);
    expect(stored.computed.map((v) => v.type).sort()).toEqual(['double', 'total']);
  });

  it('resolves paths as the entity with its rights settled (inherited owners included)', () => {
    const holders: Properties[] = [];
    materialise({ entity, type, targets, stamp, newId: counter(), reads: { resolve: (holder, path) => (holders.push(holder), children(path)) } });
    expect(holders.length).toBeGreaterThan(0);
    expect(holders[0]!._owner!.map((v) => v.reference)).toEqual([OWNER, STRANGER]);
  });

  it('is stable: materialising what it stored changes nothing', () => {
    const again = materialise({ entity: stored.entity, type, targets, stamp, newId: counter(0x9000), reads: { resolve: (_holder, path) => children(path) } });
    expect(again.entity).toEqual(stored.entity);
    expect(again.computed).toEqual([]);
  });
});
