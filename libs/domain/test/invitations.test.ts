import {
  DomainError,
  INVITATION_AUDIENCE,
  INVITATION_SECONDS,
  assertMayInvite,
  checkInvitationClaims,
  fromEntuSpelling,
  invitationClaims,
  invitationLink,
  inviteeAddress,
  isEntuInvitation,
  type Properties,
  type ValueInput,
} from '../src';

const kindOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error.kind;
    throw error;
  }
};

const NOW = 1_800_000_000;
const good = invitationClaims('db1', 'p'.repeat(24), 'j'.repeat(24), NOW);

describe('invitation claims (issue 33, item 5)', () => {
  it('a new invitation names the database and the person, and holds a day', () => {
    expect(good).toEqual({ db: 'db1', person: 'p'.repeat(24), jti: 'j'.repeat(24), aud: INVITATION_AUDIENCE, iat: NOW, exp: NOW + INVITATION_SECONDS });
    expect(checkInvitationClaims(good, 'db1', NOW + INVITATION_SECONDS - 1)).toEqual(good);
  });

  it.each<[string, unknown, string, number]>([
    ['for another database', good, 'db2', NOW],
    ['expired (at its exp)', good, 'db1', NOW + INVITATION_SECONDS],
    ['expired long ago', good, 'db1', NOW + 10 * INVITATION_SECONDS],
    ['living longer than a day', { ...good, exp: good.iat + INVITATION_SECONDS + 1 }, 'db1', NOW],
    ['an API token\'s audience', { ...good, aud: 'entia' }, 'db1', NOW],
    ['no db', { ...good, db: undefined }, 'db1', NOW],
    ['an empty db', { ...good, db: '' }, '', NOW],
    ['db as an object', { ...good, db: { $ne: '' } }, 'db1', NOW],
    ['no person', { ...good, person: undefined }, 'db1', NOW],
    ['no jti', { ...good, jti: undefined }, 'db1', NOW],
    ['exp as text', { ...good, exp: String(good.exp) }, 'db1', NOW],
    ['a fractional iat', { ...good, iat: NOW + 0.5 }, 'db1', NOW],
    ['inherited claims only', Object.create(good), 'db1', NOW],
    ['__proto__ carrying the claims', JSON.parse(`{"__proto__": ${JSON.stringify(good)}}`), 'db1', NOW],
    ['an array', [good], 'db1', NOW],
    ['null', null, 'db1', NOW],
    ['a string', 'db1', 'db1', NOW],
  ])('%s → 401', (_name, payload, db, now) => {
    expect(kindOf(() => checkInvitationClaims(payload, db, now))).toBe('unauthenticated');
  });
});

describe('who may invite, and whom', () => {
  const owner = 'o'.repeat(24);
  const editor = 'e'.repeat(24);
  const person = (extra: Properties = {}): Properties => ({
    _owner: [{ _id: '1'.repeat(24), type: '_owner', reference: owner, created: { at: '', by: owner } }],
    _editor: [{ _id: '2'.repeat(24), type: '_editor', reference: editor, created: { at: '', by: owner } }],
    ...extra,
  });
  const email = (string: string): Properties => ({ email: [{ _id: '3'.repeat(24), type: 'email', string, created: { at: '', by: owner } }] });

  it.each<[string, string | undefined, string | undefined]>([
    ['an owner', owner, undefined],
    ['an editor (who could change the e-mail and invite themselves)', editor, 'forbidden'],
    ['anyone else', 'x'.repeat(24), 'forbidden'],
    ['nobody', undefined, 'forbidden'],
  ])('%s → %s', (_name, personId, kind) => {
    expect(kindOf(() => assertMayInvite(person(), personId === undefined ? {} : { personId }))).toBe(kind);
  });

  it.each<[string, Properties, string | undefined]>([
    ['the first e-mail', { email: [...email('a@example.com').email!, ...email('b@example.com').email!] }, 'a@example.com'],
    ['trimmed', email('  a@example.com '), 'a@example.com'],
    ['none', {}, undefined],
    ['empty', email(''), undefined],
    ['no @', email('example.com'), undefined],
    ['no domain dot', email('a@localhost'), undefined],
    ['a header injection', email('a@example.com\r\nBcc: x@example.com'), undefined],
    ['a display name', email('Mari <a@example.com>'), undefined],
    ['two addresses', email('a@example.com,b@example.com'), undefined],
    ['too long', email(`${'a'.repeat(250)}@example.com`), undefined],
  ])('invitee: %s', (_name, properties, expected) => {
    if (expected === undefined) expect(kindOf(() => inviteeAddress(person(properties)))).toBe('invalid');
    else expect(inviteeAddress(person(properties))).toBe(expected);
  });

  it.each([
    ['https://entu.app', 'https://entu.app/db1/invite?token=a.b.c'],
    ['https://entu.app/', 'https://entu.app/db1/invite?token=a.b.c'],
    ['https://example.com/app//', 'https://example.com/app/db1/invite?token=a.b.c'],
  ])('the link on %s', (app, link) => {
    expect(invitationLink(app, 'db1', 'a.b.c')).toBe(link);
  });
});

describe("Entu's send-invite", () => {
  it.each<[string, unknown[], boolean]>([
    ['as the client sends it', [{ type: 'entu_user', string: 'send-invite' }], true],
    ['another string', [{ type: 'entu_user', string: 'self-invite' }], false],
    ['with more fields', [{ type: 'entu_user', string: 'send-invite', email: 'x@example.com' }], false],
    ['with __proto__', JSON.parse('[{"type": "entu_user", "string": "send-invite", "__proto__": {}}]'), false],
    ['beside another value', [{ type: 'name', string: 'x' }, { type: 'entu_user', string: 'send-invite' }], false],
    ['twice', [{ type: 'entu_user', string: 'send-invite' }, { type: 'entu_user', string: 'send-invite' }], false],
    ['another property', [{ type: 'email', string: 'send-invite' }], false],
  ])('%s → %s', (_name, items, expected) => {
    expect(isEntuInvitation(items as ValueInput[])).toBe(expected);
  });

  it.each<[string, unknown[], string]>([
    ['another string', [{ type: 'entu_user', string: 'self-invite' }], '/0'],
    ['no string', [{ type: 'entu_user' }], '/0'],
    ['beside another value', [{ type: 'name', string: 'x' }, { type: 'entu_user', string: 'send-invite' }], '/1'],
    ['with an _id', [{ type: 'entu_user', string: 'send-invite', _id: 'a'.repeat(24) }], '/0'],
  ])('any other entu_user write is a 400 naming it: %s', (_name, items, pointer) => {
    let refused: unknown;
    try {
      fromEntuSpelling(items as ValueInput[]);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ kind: 'invalid', errors: [{ pointer }] });
  });
});
