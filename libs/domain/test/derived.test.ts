import {
  applyWrite,
  changedProperties,
  onlyRelabelled,
  computeFormulas,
  dependentsOf,
  dropReferencesTo,
  inheritRights,
  labelReferences,
  newProperties,
  parseFormula,
  formulaDependencies,
  removeValue,
  type FormulaPath,
  type Properties,
} from '@entia/domain';
import { EDITOR, ENTITY, NOW, OWNER, STRANGER, VIEWER, caller, context, counter, def, entityWith, hexId, thrown, val } from './fixtures';

const stamp = { at: NOW, by: OWNER };
const A = hexId(0xb1);
const B = hexId(0xb2);
const GONE = hexId(0xb3);
const props = (entries: Record<string, ReturnType<typeof val>[]>): Properties => newProperties(Object.entries(entries));

describe('reference labels', () => {
  it('sets string to the target name, replaces a stale one, drops it when the target lost its name', () => {
    const properties = props({
      customer: [val('customer', { reference: A }), val('customer', { reference: B, string: 'Old name' })],
      _owner: [val('_owner', { reference: OWNER, string: 'Ann' })],
    });
    // Readable by the holder's owners (domain-shared): see derived-rights.test.ts for the others.
    const domain = [val('_sharing', { string: 'domain' })];
    const targets = new Map([
      [A, props({ name: [val('name', { string: 'Acme' })], _sharing: domain })],
      [B, props({ name: [val('name', { string: 'Bolt Ltd' })], _sharing: domain })],
      [OWNER, props({})],
    ]);
    const { properties: labelled, changed } = labelReferences(properties, targets);
    expect(changed).toBe(true);
    expect(labelled.customer!.map((v) => v.string)).toEqual(['Acme', 'Bolt Ltd']);
    expect(labelled._owner![0]).not.toHaveProperty('string');
    expect(labelReferences(labelled, targets).changed).toBe(false);
  });

  it('leaves references whose target was not loaded, and values that are not references', () => {
    const properties = props({ customer: [val('customer', { reference: A, string: 'Kept' })], title: [val('title', { string: 'x' })] });
    const { properties: labelled, changed } = labelReferences(properties, new Map());
    expect(changed).toBe(false);
    expect(labelled.customer![0]!.string).toBe('Kept');
    expect(labelled.title![0]!.string).toBe('x');
  });
});

describe('references to deleted entities', () => {
  it('drops every reference value to a missing entity, keeps _type, removes emptied properties', () => {
    const properties = props({
      _type: [val('_type', { reference: GONE })],
      customer: [val('customer', { reference: GONE })],
      related: [val('related', { reference: A }), val('related', { reference: GONE })],
      _viewer: [val('_viewer', { reference: GONE })],
    });
    const { properties: kept, changed } = dropReferencesTo(properties, (id) => id !== GONE);
    expect(changed).toBe(true);
    expect(Object.keys(kept).sort()).toEqual(['_type', 'related']);
    expect(kept.related!.map((v) => v.reference)).toEqual([A]);
    expect(dropReferencesTo(kept, (id) => id !== GONE).changed).toBe(false);
  });
});

describe('_inheritrights', () => {
  const parent = props({ _owner: [val('_owner', { reference: OWNER })], _viewer: [val('_viewer', { reference: VIEWER }), val('_viewer', { reference: EDITOR })] });
  const child = (inherit: boolean) =>
    props({ _inheritrights: [val('_inheritrights', { boolean: inherit })], _owner: [val('_owner', { reference: STRANGER })], _editor: [val('_editor', { reference: EDITOR })] });

  it("adds the parents' rights as inherited values, not repeating one held explicitly", () => {
    const { properties, changed } = inheritRights(child(true), [parent], stamp, counter());
    expect(changed).toBe(true);
    expect(properties._owner!.map((v) => [v.reference, v.inherited ?? false])).toEqual([
      [STRANGER, false],
      [OWNER, true],
    ]);
    // EDITOR holds _editor explicitly; inheriting _viewer adds a lower right, kept for the tree below.
    expect(properties._viewer!.map((v) => v.reference).sort()).toEqual([EDITOR, VIEWER].sort());
    expect(properties._editor!.map((v) => v.inherited ?? false)).toEqual([false]);
  });

  it("passes on none of a parent's denied persons (_noaccess)", () => {
    const denying = props({ ...parent, _noaccess: [val('_noaccess', { reference: VIEWER })] });
    const { properties } = inheritRights(child(true), [denying], stamp, counter());
    expect(properties._viewer!.map((v) => v.reference)).toEqual([EDITOR]);
    expect(properties._noaccess).toBeUndefined();
  });

  it('is stable: a second run keeps the same values and ids', () => {
    const first = inheritRights(child(true), [parent], stamp, counter());
    const second = inheritRights(first.properties, [parent], stamp, counter(0x9000));
    expect(second.changed).toBe(false);
    expect(second.properties._owner).toEqual(first.properties._owner);
  });

  it('removes inherited values when turned off, or when the parent loses the right', () => {
    const on = inheritRights(child(true), [parent], stamp, counter()).properties;
    const off = inheritRights({ ...on, _inheritrights: [val('_inheritrights', { boolean: false })] }, [parent], stamp, counter());
    expect(off.changed).toBe(true);
    expect(off.properties._owner!.map((v) => v.reference)).toEqual([STRANGER]);
    expect(off.properties._viewer).toBeUndefined();
    const narrower = inheritRights(on, [props({ _owner: [val('_owner', { reference: OWNER })] })], stamp, counter());
    expect(narrower.properties._viewer).toBeUndefined();
  });

  it('inherited values cannot be overwritten or deleted by clients', () => {
    const entity = entityWith();
    entity.properties._viewer = [...entity.properties._viewer!, val('_viewer', { reference: STRANGER, inherited: true }, hexId(0x7777))];
    expect(thrown(() => applyWrite(entity, [{ type: '_viewer', _id: hexId(0x7777), reference: EDITOR }], context(OWNER))).errors[0]!.message).toMatch(/inherited/);
    expect(thrown(() => removeValue(entity, hexId(0x7777), caller(OWNER), new Map())).message).toMatch(/inherited/);
  });
});

describe('changedProperties', () => {
  it('names the properties whose values differ, whatever the key order of the values', () => {
    const a = val('title', { string: 'x', language: 'en' }, hexId(1));
    const reordered = { language: 'en', created: { ...a.created }, string: 'x', type: 'title', _id: a._id };
    expect([...changedProperties(props({ title: [a] }), props({ title: [reordered] }))]).toEqual([]);
    expect([...changedProperties(props({ title: [a] }), props({ title: [{ ...a, string: 'y' }] }))]).toEqual(['title']);
    expect([...changedProperties(props({ title: [a] }), props({}))]).toEqual(['title']);
    expect([...changedProperties(props({}), props({ n: [val('n', { number: 1 })] }))]).toEqual(['n']);
  });
});

describe('onlyRelabelled', () => {
  it('is true when references differ only in their labels, false for any other difference', () => {
    const owner = val('_owner', { reference: OWNER, string: 'Ada' }, hexId(1));
    expect(onlyRelabelled([owner], [{ ...owner, string: 'Ada Lovelace' }])).toBe(true);
    expect(onlyRelabelled([owner], [{ ...owner, reference: EDITOR }])).toBe(false);
    expect(onlyRelabelled([owner], [owner, val('_owner', { reference: EDITOR }, hexId(2))])).toBe(false);
    expect(onlyRelabelled([owner], [{ ...owner, inherited: true }])).toBe(false);
    // A string that is a value, not a label, is compared like anything else.
    const title = val('title', { string: 'x' }, hexId(3));
    expect(onlyRelabelled([title], [{ ...title, string: 'y' }])).toBe(false);
  });
});

describe('dependentsOf', () => {
  const paths = (...formulas: string[]): FormulaPath[] => formulas.flatMap((text) => formulaDependencies(parseFormula(text)).paths);
  const change = (properties: string[] | 'all', references = false, typeName = 'row') => ({
    typeName,
    properties: properties === 'all' ? ('all' as const) : new Set(properties),
    references,
  });

  it('parents when a _child formula of that type (or *) reads a changed property, the _parent moved, or it came or went', () => {
    const sums = paths('_child.row.amount SUM');
    expect(dependentsOf(sums, change(['amount'])).parents).toBe(true);
    expect(dependentsOf(sums, change(['note'])).parents).toBe(false);
    expect(dependentsOf(sums, change(['_parent'])).parents).toBe(true);
    expect(dependentsOf(sums, change('all')).parents).toBe(true);
    expect(dependentsOf(sums, change(['amount'], false, 'invoice')).parents).toBe(false);
    expect(dependentsOf(paths('_child.*._id COUNT'), change('all', false, 'anything')).parents).toBe(true);
    expect(dependentsOf(paths('_child.*._id COUNT'), change(['amount'])).parents).toBe(false);
  });

  it('referenced entities when a _referrer formula reads it; referrers for reference paths and names', () => {
    const referrer = paths('_referrer.row.amount SUM');
    expect(dependentsOf(referrer, change(['amount'])).referenced).toBe(true);
    expect(dependentsOf(referrer, change(['note'], true)).referenced).toBe(true);
    expect(dependentsOf(referrer, change(['note'])).referenced).toBe(false);
    expect(dependentsOf(paths('customer.company.vat'), change(['vat'], false, 'company')).referrers).toBe(true);
    expect(dependentsOf(paths('customer.company.vat'), change(['phone'], false, 'company')).referrers).toBe(false);
    expect(dependentsOf([], change(['name'], false, 'company')).referrers).toBe(true);
    expect(dependentsOf([], change('all')).referrers).toBe(true);
  });

  it('children when its rights changed, and nothing at all for an unread change', () => {
    expect(dependentsOf([], change(['_viewer'])).children).toBe(true);
    expect(dependentsOf([], change(['title']))).toEqual({ parents: false, referenced: false, referrers: false, children: false });
  });
});

describe('computeFormulas with paths', () => {
  const definitions = new Map([
    ['total', def('total', 'number', { formula: '_child.row.amount SUM' })],
    ['label', def('label', 'string', { formula: 'customer.*.name " " total CONCAT' })],
  ]);
  const entity = { _id: ENTITY, properties: props({ customer: [val('customer', { reference: A })] }) };
  const resolve = (path: FormulaPath) => (path.kind === 'child' ? [10, 2.5] : ['Acme']);

  it('computes formulas reading other entities, and own formulas reading those', () => {
    const { properties, changed } = computeFormulas(entity, definitions, { stamp, newId: counter(), resolve });
    expect(properties.total![0]!.number).toBe(12.5);
    expect(properties.label![0]!.string).toBe('Acme 12.5');
    expect(changed.map((v) => v.type).sort()).toEqual(['label', 'total']);
  });

  it('without a resolver computes only the formulas reading the entity alone', () => {
    const { properties, changed } = computeFormulas(entity, definitions, { stamp, newId: counter() });
    expect(properties.total).toBeUndefined();
    expect(changed).toEqual([]);
  });

  it('keeps values (and ids) that did not change', () => {
    const once = computeFormulas(entity, definitions, { stamp, newId: counter(), resolve }).properties;
    const twice = computeFormulas({ _id: ENTITY, properties: once }, definitions, { stamp, newId: counter(0x9000), resolve });
    expect(twice.changed).toEqual([]);
    expect(twice.properties.total).toEqual(once.total);
  });
});
