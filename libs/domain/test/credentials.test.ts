import {
  MAX_CREDENTIALS,
  applyWrite,
  isCredentialProperty,
  issuerUrlProblem,
  parseIdentity,
  removeValue,
  type Entity,
  type ValueInput,
} from '@entia/domain';
import { OWNER, STRANGER, TYPE, context, entityWith, hexId, thrown, val } from './fixtures';

const PERSON = hexId(0xc1);
const ISSUER = 'https://accounts.example.com';
const IDENTITY = `${ISSUER} 1234`;

describe('parseIdentity', () => {
  it.each<[string, string, boolean]>([
    ['an https issuer and a sub', IDENTITY, true],
    ['an issuer with a path', 'https://login.example.com/tenant/v2.0 abc-DEF_123', true],
    ['http on localhost', 'http://localhost:8080 alice', true],
    ['http on 127.0.0.1', 'http://127.0.0.1:4000 alice', true],
    ['http elsewhere', 'http://accounts.example.com 1234', false],
    ['another scheme', 'ftp://accounts.example.com 1234', false],
    ['no space', ISSUER, false],
    ['an empty sub', `${ISSUER} `, false],
    ['a sub with a space', `${ISSUER} 12 34`, false],
    ['a sub with a control character', `${ISSUER} 12\u000034`, false],
    ['a sub of 256 characters', `${ISSUER} ${'s'.repeat(256)}`, false],
    ['a sub of 255 characters', `${ISSUER} ${'s'.repeat(255)}`, true],
    ['an issuer with a query', 'https://accounts.example.com?x=1 1234', false],
    ['not a URL', 'accounts 1234', false],
  ])('%s: valid %s', (_, text, valid) => {
    const parsed = parseIdentity(text);
    if (valid) expect(parsed).toEqual({ issuer: text.slice(0, text.indexOf(' ')), sub: text.slice(text.indexOf(' ') + 1) });
    else expect(typeof parsed).toBe('string');
  });

  it('bounds the issuer', () => {
    expect(issuerUrlProblem(`https://example.com/${'a'.repeat(2100)}`)).toMatch(/at most/);
  });
});

describe('credential properties', () => {
  it.each([
    ['_api_key', true],
    ['_identity', true],
    ['_passkey', true],
    ['_owner', false],
    ['email', false],
    ['__proto__', false],
    ['constructor', false],
  ])('%s is a credential: %s', (name, is) => {
    expect(isCredentialProperty(name)).toBe(is);
  });
});

describe('applyWrite: identities and passkeys', () => {
  const asPerson = { isPerson: true };
  const person = (extra: Entity['properties'] = {}) => entityWith({ owner: [OWNER], viewer: [PERSON], extra }, PERSON);
  const update = (caller: string, items: ValueInput[], entity = person(), more = {}) => applyWrite(entity, items, context(caller, { ...asPerson, ...more }));
  const pointers = (action: () => unknown) => {
    const error = thrown(action);
    expect(error.kind).toBe('invalid');
    return error.errors.map((e) => e.pointer);
  };
  const verified = (property: '_identity' | '_passkey', subject: string) => ({ verified: { property, subject } });

  it('an owner of the person links an identity: indexed by its value', () => {
    const result = update(OWNER, [{ type: '_identity', string: IDENTITY }]);
    const written = result.written[0]!;
    expect(written).toMatchObject({ type: '_identity', string: IDENTITY });
    expect(result.credentials).toEqual([{ valueId: written._id, property: '_identity', subject: IDENTITY }]);
  });

  it.each<[string, ValueInput, string]>([
    ['no string', { type: '_identity' }, '/0/string'],
    ['a number', { type: '_identity', number: 1 }, '/0/number'],
    ['a language', { type: '_identity', string: IDENTITY, language: 'en' }, '/0/language'],
    ['a malformed identity', { type: '_identity', string: 'not an identity' }, '/0/string'],
    ['a $-operator', { type: '_identity', string: { $ne: null } } as unknown as ValueInput, '/0/string'],
    ['an _id (overwriting one)', { type: '_identity', _id: hexId(0x99), string: IDENTITY }, '/0/_id'],
  ])('refuses an identity with %s', (_, item, pointer) => {
    expect(pointers(() => update(OWNER, [item]))).toEqual([pointer]);
  });

  it('refuses the same identity twice on a person', () => {
    const holder = person({ _identity: [val('_identity', { string: IDENTITY })] });
    expect(pointers(() => update(OWNER, [{ type: '_identity', string: IDENTITY }], holder))).toEqual(['/0/string']);
  });

  it('exists only on persons', () => {
    expect(pointers(() => update(OWNER, [{ type: '_identity', string: IDENTITY }], person(), { isPerson: false }))).toEqual(['/0/type']);
  });

  it(`holds at most ${MAX_CREDENTIALS} identities`, () => {
    const held = Array.from({ length: MAX_CREDENTIALS }, (_, i) => val('_identity', { string: `${ISSUER} ${i}` }));
    expect(pointers(() => update(OWNER, [{ type: '_identity', string: IDENTITY }], person({ _identity: held })))).toEqual(['/0/type']);
  });

  it('a person cannot link an identity to themselves, even owning their entity, unless a sign-in verified it', () => {
    expect(thrown(() => update(PERSON, [{ type: '_identity', string: IDENTITY }])).kind).toBe('forbidden');
    const selfOwned = entityWith({ owner: [PERSON] }, PERSON);
    expect(pointers(() => update(PERSON, [{ type: '_identity', string: IDENTITY }], selfOwned))).toEqual(['/0/type']);
    expect(update(PERSON, [{ type: '_identity', string: IDENTITY }], person(), verified('_identity', IDENTITY)).credentials).toHaveLength(1);
    // Verified is that identity only.
    expect(thrown(() => update(PERSON, [{ type: '_identity', string: `${ISSUER} other` }], person(), verified('_identity', IDENTITY))).kind).toBe('forbidden');
  });

  it('a passkey is added only by its verified registration, by its person', () => {
    const passkey = { type: '_passkey', string: 'credential-id' };
    expect(pointers(() => update(OWNER, [passkey]))).toEqual(['/0/type']);
    expect(thrown(() => update(STRANGER, [passkey], person(), verified('_passkey', 'credential-id'))).kind).toBe('forbidden');
    expect(thrown(() => update(PERSON, [{ ...passkey, string: 'another-id' }], person(), verified('_passkey', 'credential-id'))).kind).toBe('forbidden');
    const result = update(PERSON, [passkey], person(), verified('_passkey', 'credential-id'));
    expect(result.credentials).toEqual([{ valueId: result.written[0]!._id, property: '_passkey', subject: 'credential-id' }]);
    // A verified identity is no passkey, even for an owner of the person.
    expect(thrown(() => update(PERSON, [passkey], person(), verified('_identity', 'credential-id'))).kind).toBe('forbidden');
    expect(pointers(() => update(OWNER, [passkey], person(), verified('_identity', 'credential-id')))).toEqual(['/0/type']);
  });

  it('a person registering themselves owns nothing of their entity but reads it', () => {
    const items: ValueInput[] = [
      { type: '_type', reference: TYPE },
      { type: '_identity', string: IDENTITY },
      { type: '_owner', reference: OWNER },
    ];
    const result = applyWrite(undefined, items, { ...context(PERSON, asPerson), newEntityId: PERSON, registering: true, ...verified('_identity', IDENTITY) });
    expect(result.properties._owner!.map((v) => v.reference)).toEqual([OWNER]);
    expect(result.properties._viewer!.map((v) => v.reference)).toEqual([PERSON]);
    expect(result.credentials).toHaveLength(1);
  });

  it.each(['_identity', '_passkey', '_api_key'])('a person may delete their own %s without any right', (type) => {
    const value = val(type, { string: 'x' });
    const holder = person({ [type]: [value] });
    const definitions = context(PERSON, asPerson).definitions;
    expect(removeValue(holder, value._id, { personId: PERSON }, definitions).removed._id).toBe(value._id);
    expect(thrown(() => removeValue(holder, value._id, { personId: STRANGER }, definitions)).kind).toBe('forbidden');
  });
});
