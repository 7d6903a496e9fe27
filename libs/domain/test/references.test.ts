import { checkReferences, typeOf, type MetaTypes, type Properties, type ReferenceCheck } from '@entia/domain';
import { EDITOR, EXPANDER, OWNER, STRANGER, VIEWER, caller, hexId, propertiesWith, thrown } from './fixtures';

const meta: MetaTypes = { entity: hexId(0x301), property: hexId(0x302), person: hexId(0x303), database: hexId(0x304) };

const BOOK_TYPE = hexId(0x310);
const BOOK = hexId(0x311);
const SECRET_BOOK = hexId(0x312);
const PERSON = hexId(0x313);
const HIDDEN_PERSON = hexId(0x314);
const PUBLIC_BOOK = hexId(0x315);
const MISSING = hexId(0x3ff);

// Every target: OWNER, EDITOR, EXPANDER and VIEWER hold their right on each, STRANGER none.
const targets = new Map<string, Properties>([
  [meta.entity, propertiesWith({ type: meta.entity, sharing: 'domain' })],
  [meta.person, propertiesWith({ type: meta.entity, sharing: 'domain' })],
  [BOOK_TYPE, propertiesWith({ type: meta.entity, sharing: 'domain' })],
  [BOOK, propertiesWith({ type: BOOK_TYPE })],
  [SECRET_BOOK, propertiesWith({ type: BOOK_TYPE, owner: [OWNER], editor: [], expander: [], viewer: [] })],
  [PUBLIC_BOOK, propertiesWith({ type: BOOK_TYPE, sharing: 'public', owner: [OWNER], editor: [], expander: [], viewer: [] })],
  [PERSON, propertiesWith({ type: meta.person, sharing: 'domain' })],
  [HIDDEN_PERSON, propertiesWith({ type: meta.person, owner: [OWNER], editor: [], expander: [], viewer: [] })],
]);

const ref = (property: string, id: string, index = 0): ReferenceCheck => ({ pointer: `/${index}/reference`, property, id });
const run = (personId: string | undefined, checks: ReferenceCheck[]) =>
  checkReferences(checks, targets, personId === undefined ? {} : caller(personId), meta);

describe('checkReferences: the target must exist and be readable', () => {
  it.each<[string, string | undefined, string]>([
    ['an entity the writer views', VIEWER, BOOK],
    ['a public entity, for a person with no right on it', STRANGER, PUBLIC_BOOK],
    ['a public entity, for an anonymous caller', undefined, PUBLIC_BOOK],
    ['a domain-shared type, for a person with no right on it', STRANGER, BOOK_TYPE],
  ])('a reference to %s resolves', (_, personId, id) => {
    expect(() => run(personId, [ref('friend', id)])).not.toThrow();
  });

  it.each<[string, string, string]>([
    ['an entity that does not exist', VIEWER, MISSING],
    ['an entity the writer cannot read', VIEWER, SECRET_BOOK],
    ['a private entity, to a person with no right on it', STRANGER, BOOK],
  ])('a reference to %s is refused (400), without telling which', (_, personId, id) => {
    const error = thrown(() => run(personId, [ref('friend', id, 2)]));
    expect(error.kind).toBe('invalid');
    expect(error.errors).toEqual([{ pointer: '/2/reference', message: `no entity ${id} that you can read in this database` }]);
  });

  it('every unresolved reference is listed', () => {
    const error = thrown(() => run(VIEWER, [ref('friend', MISSING, 0), ref('friend', BOOK, 1), ref('friend', SECRET_BOOK, 2)]));
    expect(error.errors.map((e) => e.pointer)).toEqual(['/0/reference', '/2/reference']);
  });

  it('nothing to check is fine', () => {
    expect(() => run(STRANGER, [])).not.toThrow();
  });
});

describe('checkReferences: system references point at the right kind of entity', () => {
  it.each<[string, string]>([
    ['a user type', BOOK_TYPE],
    ['a meta-type', meta.person],
    ['entity itself', meta.entity],
  ])('_type may be %s', (_, id) => {
    expect(() => run(STRANGER, [ref('_type', id)])).not.toThrow();
  });

  it.each<[string, string]>([
    ['an ordinary entity', BOOK],
    ['a person', PERSON],
  ])('_type may not be %s', (_, id) => {
    const error = thrown(() => run(OWNER, [ref('_type', id)]));
    expect(error.kind).toBe('invalid');
    expect(error.errors).toEqual([{ pointer: '/0/reference', message: expect.stringContaining('not a type') }]);
  });

  it.each(['_owner', '_editor', '_expander', '_viewer'])('%s must reference persons', (property) => {
    expect(() => run(OWNER, [ref(property, PERSON)])).not.toThrow();
    const error = thrown(() => run(OWNER, [ref(property, BOOK)]));
    expect(error.kind).toBe('invalid');
    expect(error.errors[0]!.message).toContain('not a person');
  });

  it('a right may be given to a person the writer cannot read (sharing needs no read right on them)', () => {
    expect(() => run(STRANGER, [ref('_viewer', HIDDEN_PERSON)])).not.toThrow();
  });

  it('a right may not be given to an id that is no entity', () => {
    expect(thrown(() => run(OWNER, [ref('_viewer', 'ffffffffffffffffffffffff')])).errors[0]!.message).toContain('not a person');
  });

  it('ordinary references may point at any readable entity, persons and types included', () => {
    expect(() => run(OWNER, [ref('friend', PERSON), ref('friend', BOOK_TYPE, 1), ref('friend', BOOK, 2)])).not.toThrow();
  });
});

describe('checkReferences: _parent needs the expander right on the parent', () => {
  it.each([OWNER, EDITOR, EXPANDER])('%s may make BOOK a parent', (personId) => {
    expect(() => run(personId, [ref('_parent', BOOK)])).not.toThrow();
  });

  it('a viewer of the parent is forbidden (403): the parent is readable', () => {
    expect(thrown(() => run(VIEWER, [ref('_parent', BOOK)])).kind).toBe('forbidden');
  });

  it('a parent readable only through sharing is forbidden (403)', () => {
    expect(thrown(() => run(STRANGER, [ref('_parent', PUBLIC_BOOK)])).kind).toBe('forbidden');
  });

  it('an unreadable parent is 400, like any unresolved reference', () => {
    expect(thrown(() => run(VIEWER, [ref('_parent', SECRET_BOOK)])).kind).toBe('invalid');
    expect(thrown(() => run(STRANGER, [ref('_parent', BOOK)])).kind).toBe('invalid');
  });
});

describe('typeOf', () => {
  it('is the first _type reference, or undefined', () => {
    expect(typeOf(targets.get(BOOK)!)).toBe(BOOK_TYPE);
    expect(typeOf({})).toBeUndefined();
  });
});
