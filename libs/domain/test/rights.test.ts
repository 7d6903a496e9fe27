import { RIGHTS, callerTags, canRead, hasRight, holdersOf, ownersCanRead, readAccess, rightOf, sharingOf, type Caller, type Right } from '@entia/domain';
import { EDITOR, EXPANDER, OWNER, STRANGER, VIEWER, hexId, propertiesWith, val } from './fixtures';

const HOLDERS: Record<Right, string> = { owner: OWNER, editor: EDITOR, expander: EXPANDER, viewer: VIEWER };
const entity = propertiesWith();

describe('rights are cumulative: owner ⊇ editor ⊇ expander ⊇ viewer', () => {
  // Each row: who holds which right, and whether they have each right asked for.
  const table = RIGHTS.flatMap((held) =>
    RIGHTS.map((needed) => [held, needed, RIGHTS.indexOf(held) <= RIGHTS.indexOf(needed)] as const),
  );

  it.each(table)('a person holding %s has %s: %s', (held, needed, expected) => {
    expect(hasRight(entity, { personId: HOLDERS[held] }, needed)).toBe(expected);
  });

  it.each(RIGHTS)('a person in no right list has no %s right', (needed) => {
    expect(hasRight(entity, { personId: STRANGER }, needed)).toBe(false);
  });

  it.each(RIGHTS)('an anonymous caller has no %s right', (needed) => {
    expect(hasRight(entity, {}, needed)).toBe(false);
  });

  it('a person in several lists counts with the highest', () => {
    const properties = propertiesWith({ owner: [OWNER], viewer: [OWNER, VIEWER], editor: [OWNER] });
    expect(rightOf(properties, OWNER)).toBe('owner');
    expect(rightOf(propertiesWith({ viewer: [EDITOR] }), EDITOR)).toBe('editor');
  });

  it('public or domain sharing reads but gives no right to write', () => {
    const shared = propertiesWith({ sharing: 'public' });
    expect(canRead(shared, { personId: STRANGER })).toBe(true);
    expect(hasRight(shared, { personId: STRANGER }, 'viewer')).toBe(false);
  });
});

describe('canRead', () => {
  it.each<[string | undefined, string, boolean]>([
    [undefined, 'private', false],
    [undefined, 'domain', false],
    [undefined, 'public', true],
    [STRANGER, 'private', false],
    [STRANGER, 'domain', true],
    [STRANGER, 'public', true],
    [VIEWER, 'private', true],
    [EXPANDER, 'private', true],
    [EDITOR, 'private', true],
    [OWNER, 'private', true],
  ])('caller %s on a %s entity: %s', (personId, sharing, expected) => {
    const caller: Caller = personId === undefined ? {} : { personId };
    expect(canRead(propertiesWith({ sharing }), caller)).toBe(expected);
  });

  it('an entity without _sharing is private', () => {
    const properties = propertiesWith();
    expect(sharingOf(properties)).toBe('private');
    expect(canRead(properties, { personId: STRANGER })).toBe(false);
    expect(canRead(properties, {})).toBe(false);
  });

  it('an unknown stored sharing counts as private', () => {
    const properties = propertiesWith({ sharing: 'everyone' });
    expect(sharingOf(properties)).toBe('private');
    expect(canRead(properties, { personId: STRANGER })).toBe(false);
  });
});

describe('readAccess says what canRead says', () => {
  // A small deterministic generator, so that the combinations are many but the run repeatable.
  function random(seed: number) {
    let state = seed;
    return (n: number) => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state % n;
    };
  }
  const people = [hexId(0xb1), hexId(0xb2), hexId(0xb3), hexId(0xb4), hexId(0xb5)];
  const pick = (next: (n: number) => number) => people.filter(() => next(3) === 0);
  const sharings = [undefined, 'private', 'domain', 'public', 'bogus'];

  const rnd = random(42);
  const entities = Array.from({ length: 60 }, () => {
    const sharing = sharings[rnd(sharings.length)];
    return propertiesWith({
      owner: pick(rnd),
      editor: pick(rnd),
      expander: pick(rnd),
      viewer: pick(rnd),
      ...(sharing === undefined ? {} : { sharing }),
      extra: rnd(2) === 0 ? {} : { _noaccess: pick(rnd).map((reference) => val('_noaccess', { reference })) },
    });
  });
  const callers: Caller[] = [{}, ...people.map((personId) => ({ personId })), { personId: hexId(0xbf) }];

  it.each(entities.map((properties, index) => [index, properties] as const))('entity #%i, for every caller', (_, properties) => {
    for (const caller of callers) {
      const byTags = readAccess(properties).some((tag) => callerTags(caller).includes(tag));
      expect({ caller, readable: byTags }).toEqual({ caller, readable: canRead(properties, caller) });
    }
  });

  it('the generated entities cover every sharing and both outcomes', () => {
    const outcomes = new Set(entities.flatMap((properties) => callers.map((caller) => `${sharingOf(properties)}:${canRead(properties, caller)}`)));
    expect([...outcomes].sort()).toEqual(['domain:false', 'domain:true', 'private:false', 'private:true', 'public:true']);
  });

  it('lists each right holder once, and the sharing unless private', () => {
    const properties = propertiesWith({ owner: [OWNER], editor: [OWNER, EDITOR], viewer: [], expander: [], sharing: 'domain' });
    expect(readAccess(properties).sort()).toEqual([EDITOR, OWNER, 'domain'].sort());
    expect(readAccess(propertiesWith({ owner: [OWNER], editor: [], viewer: [], expander: [] }))).toEqual([OWNER]);
  });

  it('ignores references outside the right lists', () => {
    const properties = propertiesWith({ owner: [OWNER], editor: [], viewer: [], expander: [], extra: { friend: [val('friend', { reference: STRANGER })] } });
    expect(readAccess(properties)).toEqual([OWNER]);
    expect(canRead(properties, { personId: STRANGER })).toBe(false);
  });
});

describe('_noaccess: the persons it names hold no right, whatever the lists say', () => {
  const denied = (ids: string[]) => ({ _noaccess: ids.map((reference) => val('_noaccess', { reference })) });

  it.each<[string, Right | undefined, boolean]>([
    [OWNER, undefined, false],
    [EDITOR, undefined, false],
    [EXPANDER, undefined, false],
    [VIEWER, undefined, false],
  ])('%s, denied on a private entity: right %s, reads %s', (personId, right, reads) => {
    const properties = propertiesWith({ owner: [OWNER, hexId(0xa9)], extra: denied([OWNER, EDITOR, EXPANDER, VIEWER]) });
    expect(rightOf(properties, personId)).toBe(right);
    expect(canRead(properties, { personId })).toBe(reads);
    expect(readAccess(properties)).not.toContain(personId);
  });

  it('denies inherited rights as well as the entity’s own', () => {
    const properties = propertiesWith({ extra: { _viewer: [val('_viewer', { reference: STRANGER, inherited: true })], ...denied([STRANGER]) } });
    expect(rightOf(properties, STRANGER)).toBeUndefined();
    expect(canRead(properties, { personId: STRANGER })).toBe(false);
  });

  it('leaves everyone else as they were', () => {
    const properties = propertiesWith({ extra: denied([VIEWER]) });
    expect([rightOf(properties, OWNER), rightOf(properties, EDITOR), rightOf(properties, EXPANDER)]).toEqual(['owner', 'editor', 'expander']);
    expect(readAccess(properties).sort()).toEqual([OWNER, EDITOR, EXPANDER].sort());
  });

  it('does not override sharing: a domain or public entity stays readable to the denied, with no right', () => {
    for (const sharing of ['domain', 'public']) {
      const properties = propertiesWith({ sharing, extra: denied([VIEWER]) });
      expect(canRead(properties, { personId: VIEWER })).toBe(true);
      expect(hasRight(properties, { personId: VIEWER }, 'viewer')).toBe(false);
    }
  });

  it('a denied owner copies nothing into the entity: holdersOf and ownersCanRead leave them out', () => {
    const holder = propertiesWith({ owner: [OWNER, EDITOR], extra: denied([OWNER]) });
    expect(holdersOf(holder, '_owner')).toEqual([EDITOR]);
    const readableByOwnerOnly = propertiesWith({ owner: [OWNER], editor: [], expander: [], viewer: [] });
    expect(ownersCanRead(holder, readableByOwnerOnly)).toBe(false);
    expect(ownersCanRead(propertiesWith({ owner: [OWNER] }), readableByOwnerOnly)).toBe(true);
  });
});
