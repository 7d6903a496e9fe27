import { assertDatabaseOwner, assertMayDelete, mayAddress } from '@entia/domain';
import { EDITOR, ENTITY, EXPANDER, OWNER, STRANGER, VIEWER, caller, entityWith, thrown } from './fixtures';

/** The rights rules the use cases ask before they act (SPEC §6, §7). */

describe('mayAddress', () => {
  const privateEntity = entityWith({ sharing: 'private' });
  it.each<[string, string, boolean, boolean]>([
    ['a viewer, reading', VIEWER, false, true],
    ['a stranger, reading a private entity', STRANGER, false, false],
    ['a stranger, writing a private entity', STRANGER, true, false],
    ['the person itself, writing (their API keys)', ENTITY, true, true],
    ['the person itself, reading without a right', ENTITY, false, false],
  ])('%s: %s', (_name, personId, writing, expected) => {
    expect(mayAddress(privateEntity, caller(personId), writing)).toBe(expected);
  });

  it('anybody addresses a public entity', () => {
    expect(mayAddress(entityWith({ sharing: 'public' }), {}, false)).toBe(true);
  });
});

describe.each([
  ['assertMayDelete', assertMayDelete, 'Deleting an entity needs the owner right.'],
  ['assertDatabaseOwner', assertDatabaseOwner, 'Rebuilding a database needs the owner right on its database entity.'],
])('%s: owners only', (_name, assert, message) => {
  const properties = entityWith().properties;
  it('lets an owner through', () => expect(() => assert(properties, caller(OWNER))).not.toThrow());
  it.each([EDITOR, EXPANDER, VIEWER, STRANGER])('refuses %s (403)', (personId) => {
    const error = thrown(() => assert(properties, caller(personId)));
    expect(error.kind).toBe('forbidden');
    expect(error.message).toBe(message);
  });
});
