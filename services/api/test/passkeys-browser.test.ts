import type { AuthResult, Value } from '@entia/client';
import { build, stop as stopEsbuild } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import request from 'supertest';
import type { Outcome, PagePasskeys } from './passkeys-browser-entry';
import { ROOT, closeServer as close, ensureSdkBuild, pageServer, type PageSite } from './sdk-page';
import { CHROMIUM_LAUNCH } from './chromium';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

// Passkeys as a person uses them: the SDK's published build bundled for a page that a headless
// Chromium loads, whose passkey prompts Chromium's virtual authenticator (CDP WebAuthn) answers like
// a platform authenticator the user approves. WebAuthn runs only in a secure context, so the pages
// are served from http://localhost:<port> (localhost counts as secure); the RP ID is `localhost`.
// A second page server is a second origin with the same RP ID: the browser signs there too, and
// only the API's list of origins (WEBAUTHN_ORIGINS) tells the two apart.

const ENTRY = join(__dirname, 'passkeys-browser-entry.ts');
const PAGE = readFileSync(join(__dirname, 'passkeys-browser-page.html'));
/** Short, so that a revoked passkey's token is seen refused within a test. */
const RECHECK_MS = 300;

/** A POST /api/auth/passkey body, as the page sent it. */
interface SignInBody {
  db: string;
  response: { id: string; response: { clientDataJSON: string } };
}

/** What the browser put in the signed client data: the page's origin and the ceremony. */
function clientData(body: SignInBody): { origin: string; type: string; challenge: string } {
  return JSON.parse(Buffer.from(body.response.response.clientDataJSON, 'base64url').toString('utf8'));
}

describe('passkeys in a browser page (headless Chromium, virtual authenticator)', () => {
  jest.setTimeout(120_000);

  let site: PageSite;
  let elsewhere: PageSite;
  let api: TestApi;
  let t: TestTenant;
  let person: Person;
  let browser: Browser;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  /** Uncaught errors in the page; none is expected. */
  const problems: string[] = [];
  /** Every POST /api/auth/passkey the page sent, in order. */
  const signIns: SignInBody[] = [];
  /** The passkey registered by the first test. */
  let passkey: Value | undefined;

  beforeAll(async () => {
    ensureSdkBuild();
    const bundled = await build({ entryPoints: [ENTRY], absWorkingDir: ROOT, bundle: true, platform: 'browser', format: 'esm', target: 'es2022', write: false, logLevel: 'silent' });
    const script = bundled.outputFiles[0]!.text;
    site = await pageServer(PAGE, 'passkeys-browser-entry.js', script, { host: 'localhost' });
    elsewhere = await pageServer(PAGE, 'passkeys-browser-entry.js', script, { host: 'localhost' });

    api = testApi({
      // Both pages may call the API: the other origin's refusal must come from the passkey check, not CORS.
      CORS_ORIGINS: `${site.origin},${elsewhere.origin}`,
      WEBAUTHN_RP_ID: 'localhost',
      WEBAUTHN_ORIGINS: site.origin,
      KEY_RECHECK_MS: String(RECHECK_MS),
    });
    t = await testTenant(api);
    person = await t.newPerson('Passkey user');
    // So that a GET of their own entity shows whether a token of theirs works.
    await request(api.app).post(`/api/${t.db}/entity/${person.id}`).set('Authorization', t.owner.auth).send([{ type: '_viewer', reference: person.id }]).expect(200);

    browser = await chromium.launch(CHROMIUM_LAUNCH);
    const context = await browser.newContext();
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.name}: ${error.message}`));
    page.on('request', (req) => {
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/api/auth/passkey') signIns.push(JSON.parse(req.postData() ?? 'null'));
    });
    // One authenticator for the tab, kept across its navigations: the passkey made on one origin
    // is offered on the other, as a phone's would be.
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    }));
    await open(site.origin);
  }, 240_000);

  afterAll(async () => {
    // esbuild's service process is a child of this one: tests run in band on two cores.
    await stopEsbuild();
    await browser?.close();
    if (site) await close(site.server);
    if (elsewhere) await close(elsewhere.server);
    await t?.close();
    await api?.close();
  });

  async function open(origin: string): Promise<void> {
    await page.goto(`${origin}/`, { timeout: 60_000 });
    await page.waitForSelector('body[data-ready]', { state: 'attached', timeout: 30_000 });
  }

  /** The page's `registerPasskey`, signed in with the person's API key. */
  async function register(): Promise<Outcome<Value>> {
    const outcome = await page.evaluate(([api, key, db]) => (globalThis as unknown as { passkeys: PagePasskeys }).passkeys.register(api, key, db), [t.baseUrl, person.apiKey, t.db] as const);
    expect(problems.splice(0)).toEqual([]);
    return outcome;
  }
  /** The page's `signInWithPasskey`, and the body it POSTed (when it got that far). */
  async function signIn(): Promise<{ outcome: Outcome<AuthResult>; sent: SignInBody | undefined }> {
    const before = signIns.length;
    const outcome = await page.evaluate(([api, db]) => (globalThis as unknown as { passkeys: PagePasskeys }).passkeys.signIn(api, db), [t.baseUrl, t.db] as const);
    expect(problems.splice(0)).toEqual([]);
    return { outcome, sent: signIns[before] };
  }
  const get = (path: string, bearer: string) => request(api.app).get(`/api/${t.db}${path}`).set('Authorization', `Bearer ${bearer}`);
  const credentialIds = async () =>
    (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials.map((credential) => ({
      // CDP gives the id in base64; the API and WebAuthn's JSON in base64url.
      id: Buffer.from(credential.credentialId, 'base64').toString('base64url'),
      discoverable: credential.isResidentCredential,
      rpId: credential.rpId,
    }));
  const needPasskey = (): Value => {
    if (!passkey) throw new Error('no passkey was registered; see the first test');
    return passkey;
  };

  it('registers a passkey: the person’s entity shows a _passkey value with the authenticator’s credential id', async () => {
    const registered = await register();
    expect(registered).toEqual({ ok: expect.objectContaining({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), type: '_passkey', string: expect.any(String) }) });
    passkey = registered.ok!;
    // A discoverable credential, for this RP ID, made just now: the one the API stored.
    expect(await credentialIds()).toEqual([{ id: passkey.string, discoverable: true, rpId: 'localhost' }]);

    const mine = await get(`/entity/${person.id}`, person.token);
    expect(mine.status).toBe(200);
    expect(mine.body.entity._passkey).toEqual([expect.objectContaining({ _id: passkey._id, type: '_passkey', string: passkey.string })]);
  });

  it('does not make a second passkey for the person on an authenticator that holds one', async () => {
    needPasskey();
    // The options exclude the person's passkeys, so the browser refuses before anything is stored.
    const again = await register();
    expect(again.error).toMatchObject({ name: 'InvalidStateError', code: 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED' });
    expect((await credentialIds()).length).toBe(1);
    expect((await get(`/entity/${person.id}`, person.token)).body.entity._passkey).toHaveLength(1);
  });

  it('signs in with the passkey: the person’s account and a token that works', async () => {
    needPasskey();
    const { outcome, sent } = await signIn();
    expect(outcome.error).toBeUndefined();
    expect(outcome.ok?.accounts).toEqual([{ _id: t.db, name: t.db, user: { _id: person.id, name: 'Passkey user' } }]);
    expect(sent?.response.id).toBe(passkey!.string);

    const mine = await get(`/entity/${person.id}`, outcome.ok!.token);
    expect(mine.status).toBe(200);
    expect(mine.body.entity._id).toBe(person.id);
  });

  it('refuses the passkey in another database: it opens its own person’s database only', async () => {
    needPasskey();
    const other = await testTenant(api);
    try {
      const outcome = await page.evaluate(([api, db]) => (globalThis as unknown as { passkeys: PagePasskeys }).passkeys.signIn(api, db), [t.baseUrl, other.db] as const);
      expect(problems.splice(0)).toEqual([]);
      expect(outcome).toEqual({ error: expect.objectContaining({ name: 'EntiaError', status: 401 }) });
    } finally {
      await other.close();
    }
  });

  it('refuses a replayed sign-in: the same signed answer a second time is 401', async () => {
    needPasskey();
    const { outcome, sent } = await signIn();
    expect(outcome.error).toBeUndefined();
    expect(typeof outcome.ok?.token).toBe('string');
    // Someone who saw the request sends it again, byte for byte.
    const replayed = await request(api.app).post('/api/auth/passkey').send(sent!);
    expect({ status: replayed.status, token: replayed.body?.token }).toEqual({ status: 401, token: undefined });
    expect(replayed.body).toMatchObject({ type: expect.any(String), status: 401 });
  });

  it('refuses a sign-in from an origin not in WEBAUTHN_ORIGINS, although the browser signed it (same RP ID)', async () => {
    needPasskey();
    await open(elsewhere.origin);
    try {
      const { outcome, sent } = await signIn();
      // The browser did sign there, with the person's passkey: the refusal is the API's.
      expect(sent && { id: sent.response.id, ...clientData(sent) }).toEqual(expect.objectContaining({ id: passkey!.string, origin: elsewhere.origin, type: 'webauthn.get' }));
      expect(outcome).toEqual({ error: expect.objectContaining({ name: 'EntiaError', status: 401 }) });
    } finally {
      await open(site.origin);
    }
  });

  it('deleting the _passkey value revokes it: its sign-in is 401 and its tokens stop working within KEY_RECHECK_MS', async () => {
    const { _id: valueId } = needPasskey();
    const before = await signIn();
    const token = before.outcome.ok?.token;
    if (!token) throw new Error(`the passkey no longer signs in before its deletion: ${JSON.stringify(before.outcome)}`);
    expect((await get(`/entity/${person.id}`, token)).status).toBe(200);

    // The person removes it themselves (signed in with their API key).
    const deleted = await request(api.app).delete(`/api/${t.db}/property/${valueId}`).set('Authorization', person.auth);
    expect(deleted.status).toBe(200);
    const revokedAt = Date.now();

    // The authenticator still holds it and signs; the API no longer knows it.
    const after = await signIn();
    expect(after.sent?.response.id).toBe(passkey!.string);
    expect(after.outcome).toEqual({ error: expect.objectContaining({ name: 'EntiaError', status: 401 }) });

    let res = await get(`/entity/${person.id}`, token);
    while (res.status === 200 && Date.now() - revokedAt < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      res = await get(`/entity/${person.id}`, token);
    }
    const elapsed = Date.now() - revokedAt;
    expect(res.status).toBe(401);
    // Within the recheck interval, with room for a busy machine's round trips.
    expect(elapsed).toBeLessThan(RECHECK_MS + 2000);
    // The person's other way in is untouched.
    expect((await get(`/entity/${person.id}`, person.token)).status).toBe(200);
    expect((await get(`/entity/${person.id}`, person.token)).body.entity._passkey ?? []).toEqual([]);
  });
});
