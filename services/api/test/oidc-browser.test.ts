import type { AuthResult } from '@entia/client';
import { build, stop as stopEsbuild } from 'esbuild';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import request from 'supertest';
import type { Outcome, PageOidc } from './oidc-browser-entry';
import { startIdp, type Idp } from './oidc/idp';
import { freePort } from './processes';
import { ROOT, closeServer, ensureSdkBuild, pageServer, type PageSite } from './sdk-page';
import { CHROMIUM_LAUNCH } from './chromium';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

// OpenID Connect sign-in as a person goes through it: the SDK's redirect helpers (its published
// build, bundled for a page) in a headless Chromium, which follows the real redirects from the app's
// page to the API, to a real OpenID provider (oidc-provider, its own process; it signs in whoever
// `login_hint` names, with no UI), back to the API's callback on a real port, and to the app's return
// page with a one-time code. Three origins on 127.0.0.1: the app's page, the API, the provider, so
// the browser enforces CORS on the page's code exchange. Each case runs in a fresh browser context:
// the provider's session cookie would otherwise sign the next case in as the previous person (its
// login prompt is skipped for a live session whatever the login_hint says).

const ENTRY = join(__dirname, 'oidc-browser-entry.ts');
const PAGE = readFileSync(join(__dirname, 'oidc-browser-page.html'));
const SECRET = 'a-client-secret-of-the-test-provider';
const CALLBACK_PATH = '/api/auth/oidc/test/callback';

/** A browser tab of its own context (cookies, sessionStorage), and what it did. */
interface Tab {
  context: BrowserContext;
  page: Page;
  /** The top-level addresses it went through (each redirect hop), as `where path`. */
  hops: string[];
  /** How many code exchanges (POST /api/auth/oidc/token) the page sent. */
  exchanges: number;
}

describe('OpenID Connect sign-in in a browser page (headless Chromium, real provider, SDK redirect helpers)', () => {
  jest.setTimeout(120_000);

  let app: PageSite;
  let idp: Idp;
  let api: TestApi;
  let apiServer: Server;
  let apiUrl: string;
  let t: TestTenant;
  let browser: Browser;
  /** The app's return address: its one OIDC_REDIRECT_URIS entry. */
  let returnTo: string;
  /** Uncaught errors in any page; none is expected. */
  const problems: string[] = [];
  const tabs: Tab[] = [];

  beforeAll(async () => {
    ensureSdkBuild();
    const bundled = await build({ entryPoints: [ENTRY], absWorkingDir: ROOT, bundle: true, platform: 'browser', format: 'esm', target: 'es2022', write: false, logLevel: 'silent' });
    // The same page where a sign-in starts and where it returns.
    app = await pageServer(PAGE, 'oidc-browser-entry.js', bundled.outputFiles[0]!.text, { paths: ['/', '/signed-in'] });
    returnTo = `${app.origin}/signed-in`;

    // The API's port comes first: the provider must know the callback (PUBLIC_URL's) before it starts.
    const apiPort = await freePort();
    apiUrl = `http://127.0.0.1:${apiPort}`;
    idp = await startIdp({ clients: [{ client_id: 'entia', client_secret: SECRET, redirect_uris: [`${apiUrl}${CALLBACK_PATH}`] }] });
    api = testApi({
      PUBLIC_URL: apiUrl,
      OIDC_PROVIDERS: JSON.stringify({ test: { issuer: idp.issuer, clientId: 'entia', clientSecret: SECRET } }),
      OIDC_REDIRECT_URIS: returnTo,
      // The page exchanges the code itself, with fetch from its own origin.
      CORS_ORIGINS: app.origin,
    });
    apiServer = api.app.listen(apiPort, '127.0.0.1');
    // Rejects on 'error' (the port taken meanwhile) rather than waiting forever.
    await once(apiServer, 'listening');
    t = await testTenant(api);

    browser = await chromium.launch(CHROMIUM_LAUNCH);
  }, 240_000);

  afterAll(async () => {
    // esbuild's service process is a child of this one: tests run in band on two cores.
    await stopEsbuild();
    await browser?.close();
    if (app) await closeServer(app.server);
    await t?.close();
    if (apiServer) {
      // The browser's keep-alive connections would hold close() open.
      apiServer.closeAllConnections();
      await closeServer(apiServer);
    }
    await api?.close();
    await idp?.stop();
  });

  /** Where an address is, for reading a tab's journey: the app's path, the API's path, or the provider. */
  function place(address: string): string {
    const url = new URL(address);
    if (url.origin === app.origin) return `app ${url.pathname}`;
    if (url.origin === apiUrl) return `api ${url.pathname}`;
    if (url.origin === new URL(idp.issuer).origin) return 'provider';
    return address;
  }

  /** A fresh context's tab on the app's sign-in page. */
  async function newTab(): Promise<Tab> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const tab: Tab = { context, page, hops: [], exchanges: 0 };
    tabs.push(tab);
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.name}: ${error.message}`));
    page.on('request', (req) => {
      // Playwright reports each redirect hop as a request of its own.
      if (req.isNavigationRequest() && req.frame() === page.mainFrame()) tab.hops.push(place(req.url()));
      if (req.method() === 'POST' && new URL(req.url()).pathname === '/api/auth/oidc/token') tab.exchanges++;
    });
    await open(page, `${app.origin}/`);
    return tab;
  }

  async function open(page: Page, address: string): Promise<void> {
    await page.goto(address, { timeout: 60_000 });
    await page.waitForSelector('body[data-ready]', { state: 'attached', timeout: 30_000 });
  }

  /**
   * Clicks "Sign in" as `loginHint` and waits for the return page, loaded; answers its address and
   * the state the tab kept when it left. The sign-in is not completed: the test decides where.
   */
  async function signIn(tab: Tab, loginHint: string): Promise<{ back: URL; kept: string | null }> {
    tab.hops.length = 0;
    const returned = tab.page.waitForURL((url) => `${url.origin}${url.pathname}` === returnTo, { timeout: 60_000 });
    await tab.page.evaluate(([api, db, redirect, hint]) => (globalThis as unknown as { oidc: PageOidc }).oidc.start(api, db, redirect, hint), [apiUrl, t.db, returnTo, loginHint] as const);
    await returned;
    await tab.page.waitForSelector('body[data-ready]', { state: 'attached', timeout: 30_000 });
    const { href, state } = await tab.page.evaluate(() => (globalThis as unknown as { oidc: PageOidc }).oidc.where());
    return { back: new URL(href), kept: state };
  }

  /** The return page's `completeOidcSignIn`, and what the address bar and sessionStorage show afterwards. */
  async function complete(tab: Tab): Promise<{ outcome: Outcome<AuthResult>; after: { href: string; state: string | null } }> {
    const outcome = await tab.page.evaluate((api) => (globalThis as unknown as { oidc: PageOidc }).oidc.complete(api), apiUrl);
    const after = await tab.page.evaluate(() => (globalThis as unknown as { oidc: PageOidc }).oidc.where());
    expect(problems.splice(0)).toEqual([]);
    return { outcome, after };
  }

  /** A person of the database whom the provider's `sub` signs in, linked by the database's owner. */
  async function personWithIdentity(name: string, sub: string): Promise<Person> {
    const person = await t.newPerson(name);
    const res = await request(api.app).post(`/api/${t.db}/entity/${person.id}`).set('Authorization', t.owner.auth).send([{ type: '_identity', string: `${idp.issuer} ${sub}` }]);
    expect(res.status).toBe(200);
    return person;
  }

  const exchange = (code: string | null) => request(api.app).post('/api/auth/oidc/token').send({ code });

  afterEach(async () => {
    for (const tab of tabs.splice(0)) await tab.context.close();
  });

  it('signs a known identity in: app → API → provider → API → the return page, whose completeOidcSignIn answers the person and a token that works', async () => {
    const pat = await personWithIdentity('Pat', 'pat');
    const tab = await newTab();
    const { back, kept } = await signIn(tab, 'pat');

    // Through the provider and back, by redirects alone.
    expect(tab.hops.filter((hop, i, all) => hop !== all[i - 1])).toEqual(['api /api/auth/oidc/test', 'provider', `api ${CALLBACK_PATH}`, 'app /signed-in']);
    // The return address carries a one-time code and the state this tab kept when it left.
    expect(back.searchParams.get('error')).toBeNull();
    const code = back.searchParams.get('entia_code');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Unguessable: at least 24 random bytes, base64url.
    expect(kept).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(back.searchParams.get('state')).toBe(kept);

    const { outcome, after } = await complete(tab);
    expect(outcome.error).toBeUndefined();
    expect(outcome.ok?.accounts).toEqual([{ _id: t.db, name: t.db, user: { _id: pat.id, name: 'Pat' } }]);
    // Nothing of the sign-in is left for a reload, a bookmark or a shared link.
    expect(after).toEqual({ href: returnTo, state: null });
    expect(tab.exchanges).toBe(1);

    const mine = await request(api.app).get(`/api/${t.db}/entity/${pat.id}`).set('Authorization', `Bearer ${outcome.ok!.token}`);
    expect(mine.status).toBe(200);
    expect(mine.body.entity._id).toBe(pat.id);
    // The page spent the code.
    expect((await exchange(code)).status).toBe(401);
  });

  it('refuses a sign-in started in another browser (login CSRF): the lured page sends nothing, and the code stays the starter’s', async () => {
    const mallory = await personWithIdentity('Mallory', 'mallory');
    // The attacker signs in as themselves and stops at the return address, code unspent…
    const attacker = await newTab();
    const { back } = await signIn(attacker, 'mallory');
    expect(back.searchParams.get('entia_code')).not.toBeNull();

    // …and lures the victim there: a browser that never started a sign-in.
    const victim = await newTab();
    await open(victim.page, back.href);
    const lured = await complete(victim);
    expect(lured.outcome).toEqual({ error: expect.objectContaining({ isOidcSignInError: true, error: 'invalid_state' }) });
    // Refused before the exchange: the victim is not signed in as the attacker, and the code was not sent.
    expect(victim.exchanges).toBe(0);
    // Nor left in the victim's address bar, where a reload or a shared link would carry it.
    expect(lured.after.href).toBe(returnTo);

    // The refusal was the state check alone: the tab that started the sign-in still completes it.
    const { outcome } = await complete(attacker);
    expect(outcome.ok?.accounts).toEqual([{ _id: t.db, name: t.db, user: { _id: mallory.id, name: 'Mallory' } }]);
  });

  it('returns an identity no person has with error=access_denied: completeOidcSignIn rejects with OidcSignInError', async () => {
    const tab = await newTab();
    const { back, kept } = await signIn(tab, 'stranger');
    expect(tab.hops.filter((hop, i, all) => hop !== all[i - 1])).toEqual(['api /api/auth/oidc/test', 'provider', `api ${CALLBACK_PATH}`, 'app /signed-in']);
    expect({ error: back.searchParams.get('error'), code: back.searchParams.get('entia_code'), state: back.searchParams.get('state') }).toEqual({ error: 'access_denied', code: null, state: kept });
    expect(back.searchParams.get('error_description')).toBeTruthy();

    const { outcome, after } = await complete(tab);
    expect(outcome).toEqual({ error: expect.objectContaining({ name: 'OidcSignInError', isOidcSignInError: true, error: 'access_denied', message: back.searchParams.get('error_description') }) });
    expect(tab.exchanges).toBe(0);
    // The sign-in is over: a retry starts with a state of its own, from a clean address.
    expect(after).toEqual({ href: returnTo, state: null });
  });
});
