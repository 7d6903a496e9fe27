import {
  allowInsecureRequests,
  authorizationCodeGrant,
  buildAuthorizationUrl,
  calculatePKCECodeChallenge,
  discovery,
  randomNonce,
  randomPKCECodeVerifier,
  randomState,
  type Configuration,
} from 'openid-client';
import { followToRedirect, startIdp, type Idp } from './idp';

// The test provider, driven by the client library the API's OIDC sign-in uses.
const client = { client_id: 'entia-test', client_secret: 'entia-test-secret', redirect_uris: ['http://127.0.0.1:9/cb'] };
const redirect_uri = client.redirect_uris[0]!;

async function signIn(config: Configuration, loginHint?: string) {
  const pkceCodeVerifier = randomPKCECodeVerifier();
  const state = randomState();
  const nonce = randomNonce();
  const url = buildAuthorizationUrl(config, {
    redirect_uri,
    scope: 'openid email profile',
    code_challenge: await calculatePKCECodeChallenge(pkceCodeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...(loginHint === undefined ? {} : { login_hint: loginHint }),
  });
  const callbackUrl = await followToRedirect(url.href, redirect_uri);
  return { callbackUrl, pkceCodeVerifier, state, nonce };
}

describe('test OpenID provider', () => {
  let idp: Idp;
  let config: Configuration;

  beforeAll(async () => {
    idp = await startIdp({ clients: [client] });
    config = await discovery(new URL(idp.issuer), client.client_id, client.client_secret, undefined, { execute: [allowInsecureRequests] });
  });
  afterAll(() => idp?.stop());

  it('signs in login_hint through code flow with PKCE', async () => {
    const { callbackUrl, pkceCodeVerifier, state, nonce } = await signIn(config, 'alice');
    expect(callbackUrl.searchParams.get('iss')).toBe(idp.issuer);

    const tokens = await authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
    expect(tokens.claims()).toMatchObject({ iss: idp.issuer, sub: 'alice', email: 'alice@example.test', email_verified: true, name: 'Person alice' });
  });

  it('reports unverified addresses', async () => {
    const { callbackUrl, pkceCodeVerifier, state, nonce } = await signIn(config, 'unverified-bob');
    const tokens = await authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
    expect(tokens.claims()).toMatchObject({ sub: 'unverified-bob', email_verified: false });
  });

  it('refuses a request without login_hint', async () => {
    const { callbackUrl } = await signIn(config);
    expect(callbackUrl.searchParams.get('error')).toBe('access_denied');
    expect(callbackUrl.searchParams.get('code')).toBeNull();
  });
});

it('a provider naming another issuer fails discovery', async () => {
  const idp = await startIdp({ issuer: (port) => `http://localhost:${port}`, clients: [client] });
  try {
    expect(idp.issuer).toBe(`http://localhost:${idp.port}`);
    await expect(
      discovery(new URL(`http://127.0.0.1:${idp.port}`), client.client_id, client.client_secret, undefined, { execute: [allowInsecureRequests] }),
    ).rejects.toThrow(/issuer does not match/);
  } finally {
    await idp.stop();
  }
});
