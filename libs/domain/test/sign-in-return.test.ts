import { returnAddressProblem, withSignInError, withSignInKey } from '../src/sign-in-return';

const ALLOWED = ['https://app.example.com/auth/callback', 'http://localhost:3000/auth/callback'];

describe('returnAddressProblem', () => {
  it.each([
    ['https://app.example.com/auth/callback?key=', undefined],
    ['https://app.example.com/auth/callback?invite=a.b.c&key=', undefined],
    ['http://localhost:3000/auth/callback?key=', undefined],
    ['https://app.example.com/auth/callback', undefined],
  ])('accepts %s', (next, problem) => {
    expect(returnAddressProblem(next, ALLOWED)).toBe(problem);
  });

  it.each([
    ['https://evil.example.com/auth/callback?key=', 'OIDC_REDIRECT_URIS'],
    ['https://app.example.com.evil.example/auth/callback?key=', 'OIDC_REDIRECT_URIS'],
    ['https://app.example.com/auth/other?key=', 'OIDC_REDIRECT_URIS'],
    ['https://app.example.com/auth/callback/../../steal?key=', 'OIDC_REDIRECT_URIS'],
    ['https://app.example.com:8443/auth/callback?key=', 'OIDC_REDIRECT_URIS'],
    ['http://app.example.com/auth/callback?key=', 'OIDC_REDIRECT_URIS'],
    ['https://user:pw@app.example.com/auth/callback?key=', 'credentials'],
    ['https://app.example.com/auth/callback#key=', 'fragment'],
    ['javascript:alert(1)//https://app.example.com/auth/callback', 'http(s)'],
    ['//evil.example.com/auth/callback', 'absolute'],
    ['/auth/callback?key=', 'absolute'],
    ['', 'absolute'],
  ])('refuses %s', (next, problem) => {
    expect(returnAddressProblem(next, ALLOWED)).toContain(problem);
  });

  it('refuses everything when no return address is configured', () => {
    expect(returnAddressProblem('https://app.example.com/auth/callback?key=', [])).toContain('OIDC_REDIRECT_URIS');
  });
});

describe('withSignInKey', () => {
  it.each([
    ['https://app.example.com/auth/callback?key=', 'once-abc_DEF', 'https://app.example.com/auth/callback?key=once-abc_DEF'],
    ['https://app.example.com/auth/callback?invite=x.y.z&key=', 'once-k', 'https://app.example.com/auth/callback?invite=x.y.z&key=once-k'],
    ['https://app.example.com/auth/callback', 'once-k', 'https://app.example.com/auth/callback?key=once-k'],
    ['https://app.example.com/auth/callback?a=1', 'once-k', 'https://app.example.com/auth/callback?a=1&key=once-k'],
  ])('%s + %s', (next, key, expected) => {
    expect(withSignInKey(next, key)).toBe(expected);
  });
});

describe('withSignInError', () => {
  it('adds the reason as parameters the app can read', () => {
    const url = new URL(withSignInError('https://app.example.com/auth/callback?key=', 'access_denied', 'The provider said no.'));
    expect([url.searchParams.get('key'), url.searchParams.get('error'), url.searchParams.get('error_description')]).toEqual(['', 'access_denied', 'The provider said no.']);
  });
});
