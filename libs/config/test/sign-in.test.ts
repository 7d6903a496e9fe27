import { loadConfig, parseOidcProviders, parseRedirectUris, parseWebauthnOrigins } from '@entia/config';
import { failure, required } from './fixtures';

const CLIENT_SECRET = 'the-client-secret-never-shown';
const google = { issuer: 'https://accounts.google.com', clientId: 'abc.apps', clientSecret: CLIENT_SECRET };

const refusal = (env: Record<string, string>) => failure({ ...required, ...env });

describe('parseOidcProviders', () => {
  it('reads providers by name, with the default scope', () => {
    expect(parseOidcProviders(JSON.stringify({ google, local: { issuer: 'http://localhost:4000', clientId: 'x' } }))).toEqual([
      { name: 'google', ...google, scope: 'openid email profile' },
      { name: 'local', issuer: 'http://localhost:4000', clientId: 'x', scope: 'openid email profile' },
    ]);
    expect(parseOidcProviders('none')).toEqual([]);
  });

  it.each<[string, string]>([
    ['not JSON', '{google:'],
    ['an array', '[]'],
    ['a name with capitals', JSON.stringify({ Google: google })],
    ['a name like __proto__', '{"__proto__": {"issuer": "https://a.example", "clientId": "x"}}'],
    ['no issuer', JSON.stringify({ g: { clientId: 'x' } })],
    ['an http issuer not on localhost', JSON.stringify({ g: { ...google, issuer: 'http://accounts.example.com' } })],
    ['no client id', JSON.stringify({ g: { issuer: google.issuer } })],
    ['an empty secret', JSON.stringify({ g: { ...google, clientSecret: '' } })],
    ['a scope without openid', JSON.stringify({ g: { ...google, scope: 'email' } })],
    ['an unknown field', JSON.stringify({ g: { ...google, redirect: 'x' } })],
    ['a $-operator as a field', JSON.stringify({ g: { ...google, clientId: { $ne: 1 } } })],
    ['a name another path under /api/auth has (passkey)', JSON.stringify({ passkey: google })],
    ['a name another path under /api/auth has (refresh)', JSON.stringify({ refresh: google })],
    ['a name another path under /api/auth has (oidc)', JSON.stringify({ oidc: google })],
  ])('refuses %s', (_, value) => {
    expect(() => parseOidcProviders(value)).toThrow();
  });
});

describe('parseRedirectUris', () => {
  it('reads exact addresses', () => {
    expect(parseRedirectUris('https://app.example.com/signed-in, http://localhost:5173/cb')).toEqual(['https://app.example.com/signed-in', 'http://localhost:5173/cb']);
  });

  it.each(['app.example.com/cb', 'javascript:alert(1)', 'https://app.example.com/cb#x', 'https://APP.example.com/cb', 'https://app.example.com/a/../cb'])('refuses %s', (value) => {
    expect(() => parseRedirectUris(value)).toThrow(/not an absolute/);
  });
});

describe('parseWebauthnOrigins', () => {
  it('reads origins on the relying party', () => {
    expect(parseWebauthnOrigins('https://example.com,https://app.example.com', 'example.com')).toEqual(['https://example.com', 'https://app.example.com']);
  });

  it.each([
    ['another domain', 'https://example.org'],
    ['a domain ending like it', 'https://badexample.com'],
    ['any origin', '*'],
    ['none', 'none'],
  ])('refuses %s', (_, value) => {
    expect(() => parseWebauthnOrigins(value, 'example.com')).toThrow();
  });
});

describe('loadConfig: sign-in settings', () => {
  it('are off by default', () => {
    const config = loadConfig(required);
    expect([config.OIDC_PROVIDERS, config.OIDC_REDIRECT_URIS, config.PUBLIC_URL, config.WEBAUTHN_RP_ID]).toEqual(['none', 'none', 'none', 'none']);
  });

  it('accept a complete OpenID Connect setup', () => {
    const config = loadConfig({ ...required, OIDC_PROVIDERS: JSON.stringify({ google }), OIDC_REDIRECT_URIS: 'https://app.example.com/cb', PUBLIC_URL: 'https://api.example.com' });
    expect(parseOidcProviders(config.OIDC_PROVIDERS)).toHaveLength(1);
  });

  it('refuse providers without PUBLIC_URL and OIDC_REDIRECT_URIS, naming both', () => {
    const message = refusal({ OIDC_PROVIDERS: JSON.stringify({ google }) });
    expect(message).toMatch(/PUBLIC_URL is required/);
    expect(message).toMatch(/OIDC_REDIRECT_URIS is required/);
  });

  it('never show a client secret, not even in a refusal', () => {
    const message = refusal({ OIDC_PROVIDERS: JSON.stringify({ google: { ...google, scope: 'email' } }) });
    expect(message).toMatch(/OIDC_PROVIDERS provider "google": scope/);
    expect(message).not.toContain(CLIENT_SECRET);
    const malformed = refusal({ OIDC_PROVIDERS: `{"google": {"clientSecret": "${CLIENT_SECRET}"` });
    expect(malformed).not.toContain(CLIENT_SECRET);
  });

  it('refuse a relying party without its origins, or origins off it', () => {
    expect(refusal({ WEBAUTHN_RP_ID: 'example.com' })).toMatch(/WEBAUTHN_ORIGINS must name/);
    expect(refusal({ WEBAUTHN_RP_ID: 'example.com', WEBAUTHN_ORIGINS: 'https://example.org' })).toMatch(/WEBAUTHN_ORIGINS has https:\/\/example.org/);
    expect(refusal({ WEBAUTHN_RP_ID: 'https://example.com' })).toMatch(/WEBAUTHN_RP_ID/);
    expect(loadConfig({ ...required, WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: 'http://localhost:5173' }).WEBAUTHN_ORIGINS).toBe('http://localhost:5173');
  });

  it('refuse a PUBLIC_URL that is no http(s) address', () => {
    expect(refusal({ PUBLIC_URL: 'api.example.com' })).toMatch(/PUBLIC_URL/);
  });
});
