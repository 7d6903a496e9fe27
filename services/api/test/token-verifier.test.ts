import jwt from 'jsonwebtoken';
import { TokenVerifier, signToken, tokenKey } from '../src/auth/tokens';

/** Verified tokens are remembered until they expire, refused ones never (auth/tokens.ts). */
describe('TokenVerifier', () => {
  const key = tokenKey('s'.repeat(43));
  const grant = { accounts: { books: '5f1d7a0c9b1e8a0012345601' }, kid: 'k'.repeat(43) };
  const token = signToken(grant, key);
  const exp = (jwt.decode(token) as { exp: number }).exp * 1000;

  it.each([
    ['a valid token', token, grant],
    ['its signature changed', `${token.slice(0, -2)}AA`, undefined],
    ['signed with another secret', signToken(grant, tokenKey('o'.repeat(43))), undefined],
    ['for another audience', jwt.sign({ accounts: grant.accounts }, key, { algorithm: 'HS256', audience: 'other', expiresIn: 60, keyid: grant.kid }), undefined],
    ['without a key id', jwt.sign({ accounts: grant.accounts }, key, { algorithm: 'HS256', audience: 'entia', expiresIn: 60 }), undefined],
    ['without an expiry', jwt.sign({ accounts: grant.accounts }, key, { algorithm: 'HS256', audience: 'entia', keyid: grant.kid }), undefined],
    ['accounts not strings', jwt.sign({ accounts: { books: 1 } }, key, { algorithm: 'HS256', audience: 'entia', expiresIn: 60, keyid: grant.kid }), undefined],
    ['not a JWT', 'a.b.c', undefined],
  ])('%s', (_name, candidate, expected) => {
    const verifier = new TokenVerifier(key);
    expect(verifier.verify(candidate)).toEqual(expected);
    // Asked again (remembered or not), the same answer.
    expect(verifier.verify(candidate)).toEqual(expected);
  });

  it('a remembered token stops at its expiry', () => {
    const verifier = new TokenVerifier(key);
    expect(verifier.verify(token, exp - 1000)).toEqual(grant);
    expect(verifier.verify(token, exp - 1)).toEqual(grant);
    expect(verifier.verify(token, exp)).toBeUndefined();
  });

  it('stays bounded: when full it starts afresh, and still verifies', () => {
    const verifier = new TokenVerifier(key, 2);
    const tokens = [1, 2, 3].map((n) => signToken({ ...grant, kid: `${n}`.repeat(43) }, key));
    const kids = ['1', '2', '3'].map((n) => n.repeat(43));
    expect(tokens.map((t) => verifier.verify(t)?.kid)).toEqual(kids);
    expect(tokens.map((t) => verifier.verify(t)?.kid)).toEqual(kids);
  });
});
