import { SIGN_IN_SETTINGS, personsWithEmail, selfRegisteredPerson, signInSettings, type Properties } from '@entia/domain';
import { OWNER, TYPE, val } from './fixtures';

describe('signInSettings', () => {
  const database = (values: Record<string, unknown>): Properties =>
    Object.fromEntries(Object.entries(values).map(([name, value]) => [name, [val(name, typeof value === 'boolean' ? { boolean: value } : { string: String(value) })]]));

  it.each<[string, Properties | undefined, { selfRegistration: boolean; emailMatch: boolean }]>([
    ['no database entity', undefined, { selfRegistration: false, emailMatch: false }],
    ['nothing set', {}, { selfRegistration: false, emailMatch: false }],
    ['both on', database({ [SIGN_IN_SETTINGS.selfRegistration]: true, [SIGN_IN_SETTINGS.emailMatch]: true }), { selfRegistration: true, emailMatch: true }],
    ['set to false', database({ [SIGN_IN_SETTINGS.selfRegistration]: false }), { selfRegistration: false, emailMatch: false }],
    ['a string "true" is not on', database({ [SIGN_IN_SETTINGS.emailMatch]: 'true' }), { selfRegistration: false, emailMatch: false }],
  ])('%s', (_, properties, expected) => {
    expect(signInSettings(properties)).toEqual(expected);
  });
});

describe('personsWithEmail', () => {
  it.each([
    ['plain', 'dana@example.test', '^dana@example\\.test$'],
    ['regex characters are literal', 'a+b*(c)|d^$[x]{1}?.e\\f/g-h@example.test', '^a\\+b\\*\\(c\\)\\|d\\^\\$\\[x\\]\\{1\\}\\?\\.e\\\\f\\/g\\-h@example\\.test$'],
  ])('%s', (_, email, pattern) => {
    const [type, address] = personsWithEmail(TYPE, email);
    expect(type).toEqual({ property: '_type', field: 'reference', op: 'eq', value: TYPE });
    expect(address).toEqual({ property: 'email', field: 'string', op: 'regex', pattern, flags: 'i' });
    const regex = new RegExp(pattern, 'i');
    expect(regex.test(email.toUpperCase())).toBe(true);
    expect(regex.test(`x${email}`)).toBe(false);
  });
});

describe('selfRegisteredPerson', () => {
  const base = { personType: TYPE, identity: 'https://idp.example 1', definesEmail: true, databaseOwners: [OWNER] };
  const named = (values: ReturnType<typeof selfRegisteredPerson>, type: string) => values.filter((v) => v.type === type).map((v) => v.string ?? v.reference);

  it.each<[string, Parameters<typeof selfRegisteredPerson>[0]['profile'], boolean, string, string[]]>([
    ['name and verified e-mail', { name: 'Dana D', email: 'dana@example.test', emailVerified: true }, true, 'Dana D', ['dana@example.test']],
    ['an unverified e-mail is not kept, nor named after', { email: 'dana@example.test', emailVerified: false }, true, 'New person', []],
    ['named after a verified e-mail', { email: 'dana@example.test', emailVerified: true }, true, 'dana', ['dana@example.test']],
    ['a blank name', { name: '   ', emailVerified: false }, true, 'New person', []],
    ['no email definition', { name: 'Dana', email: 'dana@example.test', emailVerified: true }, false, 'Dana', []],
  ])('%s', (_, profile, definesEmail, name, emails) => {
    const values = selfRegisteredPerson({ ...base, profile, definesEmail });
    expect(named(values, '_type')).toEqual([TYPE]);
    expect(named(values, 'name')).toEqual([name]);
    expect(named(values, 'email')).toEqual(emails);
    expect(named(values, '_identity')).toEqual(['https://idp.example 1']);
    expect(named(values, '_owner')).toEqual([OWNER]);
  });

  it('bounds a long name', () => {
    expect(named(selfRegisteredPerson({ ...base, profile: { name: 'n'.repeat(1000), emailVerified: false } }), 'name')[0]).toHaveLength(200);
  });
});
