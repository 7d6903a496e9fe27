import { indexOf, indexed, newProperties } from '@entia/domain';
import { ENTITY, OWNER, val } from './fixtures';

/** The index entries the store keeps beside an entity's values, all derived from them. */
const entity = {
  _id: ENTITY,
  properties: newProperties(
    Object.entries({
      _owner: [val('_owner', { reference: OWNER })],
      _sharing: [val('_sharing', { string: 'public' })],
      name: [val('name', { string: 'Émile Zola' })],
      note: [val('note', { string: 'Hidden' })],
      pages: [val('pages', { number: 12 }), val('pages', { number: 3 })],
    }),
  ),
};

describe('indexOf', () => {
  const index = indexOf(entity, new Set(['name']));

  it('read: the owners and the sharing', () => {
    expect([...index.read].sort()).toEqual([OWNER, 'public'].sort());
  });

  it('search: word prefixes of the searchable properties only, folded', () => {
    expect(index.search).toEqual(expect.arrayContaining(['e', 'emile', 'z', 'zola']));
    expect(index.search.some((token) => token.startsWith('h'))).toBe(false);
  });

  it('sort: the smallest and largest value per property and field', () => {
    expect(index.sort.pages).toEqual({ number: { min: 3, max: 12 } });
  });

  it('attributes: one entry per value of the equality-indexed fields', () => {
    expect(index.attributes).toEqual(expect.arrayContaining(['pages\u001fnumber\u001f12', 'pages\u001fnumber\u001f3']));
  });

  it('indexed: the entity with its index', () => {
    expect(indexed(entity, new Set(['name']))).toEqual({ entity, index });
  });
});
