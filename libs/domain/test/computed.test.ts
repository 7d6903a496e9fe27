import { changedProperties, changesOf, newProperties, withChanged, withReferences, type Properties, type Value } from '@entia/domain';
import { NOW, OWNER, counter, hexId, val } from './fixtures';

const AUTHOR = hexId(0xd1);
const PUBLISHER = hexId(0xd2);
const PERSON_TYPE = hexId(0xd3);
const stamp = { at: NOW, by: OWNER };

/** A target readable by anyone, of a type named `typeName`. */
const target = (name: string, typeName: string): Properties =>
  newProperties([
    ['name', [val('name', { string: name })]],
    ['_type', [val('_type', { reference: PERSON_TYPE, string: typeName })]],
    ['_sharing', [val('_sharing', { string: 'public' })]],
  ]);

/** As `materialise` does it: `_changed` first (so that it is labelled with the rest), `_reference` last. */
const compute = (properties: Properties, targets = new Map<string, Properties>(), refresh = false, at = stamp) =>
  withReferences(withChanged({ properties, stamp: at, newId: counter(0x9000), refresh }), targets);

describe('_reference: every reference an entity makes through its own properties', () => {
  const author = val('author', { reference: AUTHOR, string: 'Jane Austen' });
  const publisher = val('publisher', { reference: PUBLISHER });
  const book = newProperties([
    ['title', [val('title', { string: 'Emma' })]],
    ['author', [author]],
    ['publisher', [publisher]],
    ['_type', [val('_type', { reference: hexId(0xee), string: 'book' })]],
    ['_parent', [val('_parent', { reference: hexId(0xef) })]],
    ['_owner', [val('_owner', { reference: OWNER })]],
  ]);

  it('lists each reference value with its label, its property and the target type, under the value’s own _id; system references left out', () => {
    const targets = new Map([[AUTHOR, target('Jane Austen', 'person')]]);
    expect(compute(book, targets)._reference).toEqual([
      { _id: author._id, type: '_reference', reference: AUTHOR, property_type: 'author', string: 'Jane Austen', entity_type: 'person', created: author.created },
      // A target not loaded (a write that read none): no type name is known, none is made up.
      { _id: publisher._id, type: '_reference', reference: PUBLISHER, property_type: 'publisher', created: publisher.created },
    ]);
  });

  it('keeps the type name it had for a target not loaded this time, and drops it where the owners may not read the target', () => {
    const first = compute(book, new Map([[AUTHOR, target('Jane Austen', 'person')]]));
    expect(compute(first)._reference![0]!.entity_type).toBe('person');
    const hidden = newProperties([...Object.entries(target('Jane Austen', 'person'))].filter(([name]) => name !== '_sharing'));
    expect(compute(first, new Map([[AUTHOR, hidden]]))._reference![0]!.entity_type).toBeUndefined();
  });

  it('is gone when the entity references nothing any more', () => {
    const first = compute(book);
    const plain = newProperties([...Object.entries(first)].filter(([name]) => name !== 'author' && name !== 'publisher'));
    expect(compute(plain)._reference).toBeUndefined();
  });
});

describe('_changed: when and by whom the entity last changed', () => {
  const created: Value = val('_created', { datetime: '2024-01-01T00:00:00.000Z', reference: AUTHOR });

  it('is the change’s stamp on a change of its own, keeping its _id', () => {
    const once = compute(newProperties([['_created', [created]]]));
    expect(once._changed).toEqual([{ _id: expect.any(String), type: '_changed', datetime: NOW, reference: OWNER, created: stamp }]);
    const again = compute(once, new Map(), false, { at: '2024-06-01T00:00:00.000Z', by: AUTHOR });
    expect(again._changed).toEqual([{ _id: once._changed![0]!._id, type: '_changed', datetime: '2024-06-01T00:00:00.000Z', reference: AUTHOR, created: { at: '2024-06-01T00:00:00.000Z', by: AUTHOR } }]);
  });

  it('stays as it was on a refresh by the worker; an entity stored before it existed gets its _created', () => {
    const stored = compute(newProperties([['_created', [created]]]));
    expect(compute(stored, new Map(), true)._changed).toEqual(stored._changed);
    expect(compute(newProperties([['_created', [created]]]), new Map(), true)._changed).toEqual([{ ...created, _id: expect.any(String), type: '_changed' }]);
  });
});

describe('computed properties are never a change of their own', () => {
  const before = compute(newProperties([['author', [val('author', { reference: AUTHOR })]]]));
  const after = compute(before, new Map([[AUTHOR, target('Jane', 'person')]]), false, { at: '2025-01-01T00:00:00.000Z', by: AUTHOR });

  it('for the entities that read it and the change feed (changedProperties)', () => {
    expect(after._changed).not.toEqual(before._changed);
    expect(after._reference).not.toEqual(before._reference);
    expect([...changedProperties(before, after)]).toEqual([]);
  });

  it('for history (changesOf)', () => {
    expect(changesOf(before, after, { at: NOW, by: OWNER }, () => true)).toEqual([]);
  });
});
