// A real OpenID Connect provider (oidc-provider) for the test suite, run as its own process by
// idp.ts: `node provider.mjs '{"port":…,"issuer"?:…,"clients":[…]}'`. Authorization code flow with
// PKCE (S256), scopes `openid email profile`, RS256 ID tokens, and no UI: the login prompt signs
// in the authorization request's `login_hint` and the consent prompt grants everything asked for,
// so a whole authorization request runs through plain HTTP redirects with cookies.
// stdout carries exactly one line, `ready <issuer>`; everything else goes to stderr.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

// oidc-provider prints its development notices with console.info (stdout): keep stdout for the
// ready line alone. Patched before the dynamic import below, which a static import would precede.
console.log = console.info = (...args) => console.error(...args);
const { default: Provider } = await import('oidc-provider');

const options = JSON.parse(process.argv[2] ?? '{}');
const { port, clients = [] } = options;
if (!Number.isInteger(port)) throw new Error('provider.mjs: "port" (a number) is required');
const issuer = options.issuer ?? `http://127.0.0.1:${port}`;

// Fresh keys each start: a test provider's tokens need not survive it.
const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

const provider = new Provider(issuer, {
  clients: clients.map((client) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    // openid-client sends the secret in the body unless told otherwise; a test may override.
    token_endpoint_auth_method: 'client_secret_post',
    ...client,
  })),
  jwks: { keys: [{ ...signingKey, alg: 'RS256', use: 'sig', kid: 'test-rs256' }] },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  scopes: ['openid', 'email', 'profile'],
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // The default (true) puts scope-requested claims only in userinfo, not in the ID token; the
  // API reads them from the ID token.
  conformIdTokenClaims: false,
  // The default requires PKCE of public clients only; the API's client is confidential.
  pkce: { required: () => true },
  // devInteractions would render HTML forms; ours complete on their own (handleInteraction).
  features: { devInteractions: { enabled: false } },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  async findAccount(_ctx, sub) {
    return {
      accountId: sub,
      async claims() {
        return { sub, email: `${sub}@example.test`, email_verified: !sub.startsWith('unverified'), name: `Person ${sub}` };
      },
    };
  },
  // Explicit lifetimes, mostly to avoid the "you SHOULD change" notices of the defaults.
  ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600 },
  // Plain text, so followToRedirect's error excerpt is readable (the default is an HTML page).
  async renderError(ctx, out) {
    ctx.type = 'text/plain';
    ctx.body = Object.entries(out).map(([key, value]) => `${key}: ${value}`).join('\n');
  },
});

// Surfaces server-side failures (e.g. a token request rejected) in the stderr idp.ts reports.
provider.on('server_error', (_ctx, error) => console.error('server_error', error));

/** Finishes the pending login or consent prompt without asking anybody. */
async function handleInteraction(req, res) {
  const interaction = await provider.interactionDetails(req, res);
  const { prompt, params, session } = interaction;
  if (prompt.name === 'login') {
    const accountId = params.login_hint;
    const result = accountId
      ? { login: { accountId } }
      : { error: 'access_denied', error_description: 'no login_hint: the test provider signs in login_hint' };
    return provider.interactionFinished(req, res, result);
  }
  if (prompt.name === 'consent') {
    const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
    const grant = interaction.grantId
      ? await provider.Grant.find(interaction.grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, { consent: { grantId } });
  }
  throw new Error(`unexpected prompt ${prompt.name}`);
}

const oidc = provider.callback();
const server = createServer((req, res) => {
  if (!req.url.startsWith('/interaction/')) return oidc(req, res);
  handleInteraction(req, res).catch((error) => {
    console.error('interaction failed', error);
    if (res.headersSent) return res.destroy();
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`interaction failed: ${error.message}`);
  });
});

server.listen(port, '127.0.0.1', () => process.stdout.write(`ready ${issuer}\n`));

// Exit as soon as asked: the provider holds nothing worth flushing (in-memory storage), and
// keep-alive connections from the test's fetch must not hold the process open.
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
