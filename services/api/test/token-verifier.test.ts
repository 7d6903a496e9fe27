import jwt from 'jsonwebtoken';
import { TokenKeys, TokenVerifier, issueToken, tokenKey } from '../src/auth/tokens';

/** Verified tokens are remembered until they expire, refused ones never (auth/tokens.ts). */
describe('TokenVerifier', () => {
  const secret = 's'.repeat(43);
  const keys = new TokenKeys([{ kid: 'k1', secret }]);
  const key = tokenKey(secret);
  // Signed in a moment ago: a token carries that (`auth_time`) through refreshes; one without it (issued before refresh existed) is dated by its `iat`.
  const grant = { accounts: { books: '5f1d7a0c9b1e8a0012345601' }, kid: 'k'.repeat(43), authTime: Math.floor(Date.now() / 1000) - 5 };
  const token = issueToken(grant, keys.signing).token;
  const exp = (jwt.decode(token) as { exp: number }).exp * 1000;
  const sign = (claims: object, options: jwt.SignOptions, withKey: jwt.Secret = key) => jwt.sign(claims, withKey, { algorithm: 'HS256', audience: 'entia', expiresIn: 60, ...options });

  it('names the signing secret in the header, the API key and the sign-in time in claims, and lives 48 h', () => {
    const decoded = jwt.decode(token, { complete: true })!;
    expect(decoded.header).toMatchObject({ alg: 'HS256', kid: 'k1' });
    expect(decoded.payload).toMatchObject({ accounts: grant.accounts, key: grant.kid, aud: 'entia', auth_time: grant.authTime });
    const { iat, exp } = decoded.payload as { iat: number; exp: number };
    expect(exp - iat).toBe(48 * 3600);
  });

  it('says when the token expires, as the token does', () => {
    const issued = issueToken({ accounts: grant.accounts, kid: grant.kid }, keys.signing, Date.parse('2026-11-28T10:00:00.400Z'));
    expect(issued.expires).toBe('2026-11-30T10:00:00.000Z');
    expect((jwt.decode(issued.token) as { exp: number; auth_time: number }).exp * 1000).toBe(Date.parse(issued.expires));
    expect((jwt.decode(issued.token) as { auth_time: number }).auth_time).toBe(Date.parse('2026-11-28T10:00:00Z') / 1000);
  });

  it.each([
    ['a valid token', token, grant],
    ['its signature changed', `${token.slice(0, -2)}AA`, undefined],
    ['signed with another secret', issueToken(grant, new TokenKeys([{ kid: 'k1', secret: 'o'.repeat(43) }]).signing).token, undefined],
    ['for another audience', sign({ accounts: grant.accounts, key: grant.kid }, { audience: 'other', keyid: 'k1' }), undefined],
    ['without a key id', sign({ accounts: grant.accounts, key: grant.kid }, {}), undefined],
    ['a key id naming no secret of ours', sign({ accounts: grant.accounts, key: grant.kid }, { keyid: 'retired' }), undefined],
    ['a key id of the wrong shape', sign({ accounts: grant.accounts, key: grant.kid }, { keyid: 'k1/../k2' }), undefined],
    ['an API key that is not a string', sign({ accounts: grant.accounts, key: 7 }, { keyid: 'k1' }), undefined],
    ['without an expiry', jwt.sign({ accounts: grant.accounts, key: grant.kid }, key, { algorithm: 'HS256', audience: 'entia', keyid: 'k1' }), undefined],
    ['accounts not strings', sign({ accounts: { books: 1 }, key: grant.kid }, { keyid: 'k1' }), undefined],
    ['alg none', jwt.sign({ accounts: grant.accounts, key: grant.kid }, '', { algorithm: 'none', audience: 'entia', expiresIn: 60, keyid: 'k1' }), undefined],
    ['HS512', sign({ accounts: grant.accounts, key: grant.kid }, { algorithm: 'HS512', keyid: 'k1' }), undefined],
    ['not a JWT', 'a.b.c', undefined],
    // Issued before key ids (issue 22): the API key's hash as kid, no `key` claim.
    ['an earlier token', sign({ accounts: grant.accounts, iat: grant.authTime }, { keyid: grant.kid }), grant],
    ['an earlier token with another secret', sign({ accounts: grant.accounts }, { keyid: grant.kid }, 'o'.repeat(43)), undefined],
    ['an earlier-looking token whose kid is a secret id', sign({ accounts: grant.accounts }, { keyid: 'k1' }), undefined],
  ])('%s', (_name, candidate, expected) => {
    const verifier = new TokenVerifier(keys);
    expect(verifier.verify(candidate)).toEqual(expected);
    // Asked again (remembered or not), the same answer.
    expect(verifier.verify(candidate)).toEqual(expected);
  });

  describe('rotation', () => {
    const oldSecret = { kid: 'old', secret: 'old-secret-of-at-least-32-characters-0001' };
    const newSecret = { kid: 'new', secret: 'new-secret-of-at-least-32-characters-0002' };
    const before = new TokenKeys([oldSecret]);
    const adding = new TokenKeys([oldSecret, newSecret]);
    const switched = new TokenKeys([newSecret, oldSecret]);
    const retired = new TokenKeys([newSecret]);
    const oldToken = issueToken(grant, before.signing).token;

    it('signs with the first secret', () => {
      expect(jwt.decode(issueToken(grant, adding.signing).token, { complete: true })!.header.kid).toBe('old');
      expect(jwt.decode(issueToken(grant, switched.signing).token, { complete: true })!.header.kid).toBe('new');
    });

    it('accepts each secret\'s tokens while it is listed, and not once it is retired', () => {
      const newToken = issueToken(grant, switched.signing).token;
      for (const during of [adding, switched]) {
        expect(new TokenVerifier(during).verify(oldToken)).toEqual(grant);
        expect(new TokenVerifier(during).verify(newToken)).toEqual(grant);
      }
      expect(new TokenVerifier(retired).verify(newToken)).toEqual(grant);
      expect(new TokenVerifier(retired).verify(oldToken)).toBeUndefined();
    });

    it('a token without a key id (issued before them) verifies against any listed secret, and not once its secret is retired', () => {
      const earlier = jwt.sign({ accounts: grant.accounts, iat: grant.authTime }, tokenKey(oldSecret.secret), { algorithm: 'HS256', audience: 'entia', expiresIn: 60, keyid: grant.kid });
      expect(new TokenVerifier(switched).verify(earlier)).toEqual(grant);
      expect(new TokenVerifier(retired).verify(earlier)).toBeUndefined();
    });

    it('a token under one kid signed with another listed secret is refused: the kid decides the key', () => {
      const mislabelled = jwt.sign({ accounts: grant.accounts, key: grant.kid }, tokenKey(oldSecret.secret), { algorithm: 'HS256', audience: 'entia', expiresIn: 60, keyid: 'new' });
      expect(new TokenVerifier(switched).verify(mislabelled)).toBeUndefined();
    });
  });

  it('a remembered token stops at its expiry', () => {
    const verifier = new TokenVerifier(keys);
    expect(verifier.verify(token, exp - 1000)).toEqual(grant);
    expect(verifier.verify(token, exp - 1)).toEqual(grant);
    expect(verifier.verify(token, exp)).toBeUndefined();
  });

  it('stays bounded: when full it starts afresh, and still verifies', () => {
    const verifier = new TokenVerifier(keys, 2);
    const tokens = [1, 2, 3].map((n) => issueToken({ ...grant, kid: `${n}`.repeat(43) }, keys.signing).token);
    const kids = ['1', '2', '3'].map((n) => n.repeat(43));
    expect(tokens.map((t) => verifier.verify(t)?.kid)).toEqual(kids);
    expect(tokens.map((t) => verifier.verify(t)?.kid)).toEqual(kids);
  });
});
