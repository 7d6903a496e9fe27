import { loadConfig, parseJwtSecrets } from '@entia/config';
import { failure, required } from './fixtures';

/** JWT_SECRETS (several secrets with key ids, for rotation) and JWT_SECRET (one), issue 22. */
describe('JWT secrets', () => {
  const { JWT_SECRET: _single, ...withoutSecret } = required;
  const old = 'old-secret-of-at-least-32-characters-0001';
  const next = 'new-secret-of-at-least-32-characters-0002';
  const secretsOf = (env: NodeJS.ProcessEnv) => parseJwtSecrets(loadConfig(env));

  it('takes JWT_SECRET as the one key, under the key id "default"', () => {
    expect(secretsOf(required)).toEqual([{ kid: 'default', secret: required.JWT_SECRET }]);
  });

  it('takes JWT_SECRETS in order: the first signs', () => {
    expect(secretsOf({ ...withoutSecret, JWT_SECRETS: `2026-11:${next},default:${old}` })).toEqual([
      { kid: '2026-11', secret: next },
      { kid: 'default', secret: old },
    ]);
    expect(secretsOf({ ...withoutSecret, JWT_SECRETS: `a_B-9:${old}` })).toEqual([{ kid: 'a_B-9', secret: old }]);
  });

  it.each([
    ['both variables', { JWT_SECRET: old, JWT_SECRETS: `new:${next}` }, /JWT_SECRETS and JWT_SECRET are both set/],
    ['neither', {}, /JWT_SECRETS or JWT_SECRET is required/],
    ['an empty list', { JWT_SECRETS: ',' }, /JWT_SECRETS entry 1 is not kid:secret/],
    ['a secret without its key id', { JWT_SECRETS: old }, /JWT_SECRETS entry 1 is not kid:secret/],
    ['an empty key id', { JWT_SECRETS: `:${old}` }, /JWT_SECRETS entry 1 has a key id that is not 1-32 of/],
    ['a key id with a dot', { JWT_SECRETS: `a.b:${old}` }, /JWT_SECRETS entry 1 has a key id that is not/],
    ['a key id with a slash', { JWT_SECRETS: `new:${next},a/b:${old}` }, /JWT_SECRETS entry 2 has a key id that is not/],
    ['a key id too long', { JWT_SECRETS: `${'k'.repeat(33)}:${old}` }, /JWT_SECRETS entry 1 has a key id that is not/],
    ['a short secret', { JWT_SECRETS: `new:${next},old:hunter3-is-short` }, /JWT_SECRETS entry 2 has a secret of fewer than 32 characters/],
    ['a secret with a space after it', { JWT_SECRETS: `k1:${old} ,k2:${next}` }, /JWT_SECRETS entry 1 has a secret that begins or ends with white space/],
    ['a duplicate key id', { JWT_SECRETS: `k1:${next},k1:${old}` }, /JWT_SECRETS entry 2 repeats the key id of an earlier entry/],
    ['one secret under two key ids', { JWT_SECRETS: `k1:${old},k2:${old}` }, /JWT_SECRETS entry 2 repeats the secret of another entry/],
    ['a trailing comma', { JWT_SECRETS: `k1:${old},` }, /JWT_SECRETS entry 2 is not kid:secret/],
    ['too many', { JWT_SECRETS: Array.from({ length: 9 }, (_, n) => `k${n}:${old}${n}`).join(',') }, /JWT_SECRETS has 9 entries; at most 8/],
    ['a short JWT_SECRET', { JWT_SECRET: 'short' }, /JWT_SECRET must NOT have fewer than 32 characters$/],
  ])('refuses %s with one line naming the variable and no secret', (_name, settings, expected) => {
    const message = failure({ ...withoutSecret, ...settings, PORT: 'x' });
    expect(message).toMatch(expected);
    expect(message).toContain('PORT must be integer'); // reported with the others, not instead of them
    expect(message).not.toContain('\n');
    for (const secret of [old, next, 'hunter3-is-short']) expect(message).not.toContain(secret);
  });

  it('never names a key id either: a secret pasted the wrong way round would be one', () => {
    const secretLookingKid = 'a'.repeat(32);
    const message = failure({ ...withoutSecret, JWT_SECRETS: `${secretLookingKid}:short,${secretLookingKid}:${old}` });
    expect(message).not.toContain(secretLookingKid);
  });

  it('does not echo a connection string, which may hold a password', () => {
    const message = failure({ ...required, CACHE_REDIS_URL: 'http://user:hunter4@cache' });
    expect(message).toMatch(/CACHE_REDIS_URL must match pattern/);
    expect(message).not.toContain('hunter4');
  });

  it('takes CACHE_REDIS_URL, defaulting to REDIS_URL', () => {
    expect(loadConfig(required).CACHE_REDIS_URL).toBe('REDIS_URL');
    expect(loadConfig({ ...required, CACHE_REDIS_URL: 'rediss://cache.example:6380/1' }).CACHE_REDIS_URL).toBe('rediss://cache.example:6380/1');
  });
});
