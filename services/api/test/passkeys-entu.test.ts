import { build, stop as stopEsbuild } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import request from 'supertest';
import type { EntuPasskeys } from './passkeys-entu-entry';
import { ROOT, closeServer as close, pageServer, type PageSite } from './sdk-page';
import { CHROMIUM_LAUNCH } from './chromium';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

// Passkeys at the paths and in the shapes of Entu's web client (issue 33, item 3), on Entia's one
// WebAuthn implementation: a page does what the client's passkey pages do, and Chromium's virtual
// authenticator answers its prompts. The RP ID is `localhost`, the page's origin the only one
// allowed; challenges are single use and the `challengeToken` must name the signed one.

const ENTRY = join(__dirname, 'passkeys-entu-entry.ts');
const PAGE = readFileSync(join(__dirname, 'passkeys-entu-page.html'));

describe("passkeys as Entu's web client uses them (headless Chromium, virtual authenticator)", () => {
  jest.setTimeout(120_000);

  let site: PageSite;
  let api: TestApi;
  let t: TestTenant;
  let other: TestTenant;
  let person: Person;
  let browser: Browser;
  let page: Page;
  let registered: { _id: string; string: string } | undefined;

  beforeAll(async () => {
    const bundled = await build({ entryPoints: [ENTRY], absWorkingDir: ROOT, bundle: true, platform: 'browser', format: 'esm', target: 'es2022', write: false, logLevel: 'silent' });
    site = await pageServer(PAGE, 'passkeys-entu-entry.js', bundled.outputFiles[0]!.text, { host: 'localhost' });
    api = testApi({ CORS_ORIGINS: site.origin, WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: site.origin, RATE_LIMIT_MAX: '1000000' });
    [t, other] = await Promise.all([testTenant(api), testTenant(api)]);
    person = await t.newPerson('Kai');
    await request(api.app).post(`/api/${t.db}/entity/${person.id}`).set('Authorization', t.owner.auth).send([{ type: '_viewer', reference: person.id }]).expect(200);

    browser = await chromium.launch(CHROMIUM_LAUNCH);
    const context = await browser.newContext();
    page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await page.goto(`${site.origin}/`, { timeout: 60_000 });
    await page.waitForSelector('body[data-ready]', { state: 'attached', timeout: 30_000 });
  }, 240_000);

  afterAll(async () => {
    await stopEsbuild();
    await browser?.close();
    if (site) await close(site.server);
    await Promise.all([t?.close(), other?.close()]);
    await api?.close();
  });

  const inPage = <K extends keyof EntuPasskeys>(name: K, ...args: Parameters<EntuPasskeys[K]>) =>
    page.evaluate(([fn, rest]) => ((globalThis as unknown as { entu: Record<string, (...a: unknown[]) => unknown> }).entu[fn as string]!(...(rest as unknown[])) as ReturnType<EntuPasskeys[K]>), [name, args] as const);
  const needPasskey = () => {
    if (!registered) throw new Error('no passkey was registered; see the first test');
    return registered;
  };

  it("registers at GET/POST /api/{db}/passkey with a device name, answering Entu's shape", async () => {
    const answer = await inPage('register', t.baseUrl, person.token, t.db);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, _id: person.id, properties: [{ _id: expect.stringMatching(/^[0-9a-f]{24}$/), type: '_passkey', string: expect.stringMatching(/^Test laptop [0-9A-F]{4}$/) }] });
    const value = (answer.body as { properties: { _id: string }[] }).properties[0]!;
    const mine = await request(api.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', person.auth);
    expect(mine.body.entity._passkey).toEqual([expect.objectContaining({ _id: value._id, type: '_passkey' })]);
    registered = { _id: value._id, string: mine.body.entity._passkey[0].string };
  });

  it('signs in at GET/POST /api/auth/passkey with no database named: the passkey’s own, and a token that works', async () => {
    needPasskey();
    const answer = await inPage('signIn', t.baseUrl);
    expect(answer.status).toBe(200);
    const body = answer.body as { accounts: unknown[]; token: string; expires: string };
    expect(body.accounts).toEqual([{ _id: t.db, name: t.db, user: { _id: person.id, name: 'Kai' } }]);
    expect(Date.parse(body.expires)).toBeGreaterThan(Date.now());
    expect((await request(api.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', `Bearer ${body.token}`)).status).toBe(200);
    // The token the page sent back is the challenge the authenticator signed.
    const sent = answer.sent as { challengeToken: string; response: { clientDataJSON: string } };
    expect(JSON.parse(Buffer.from(sent.response.clientDataJSON, 'base64url').toString('utf8')).challenge).toBe(sent.challengeToken);

    // Sent again, byte for byte: the challenge is spent.
    expect((await request(api.app).post('/api/auth/passkey').send(sent)).status).toBe(401);
  });

  const challengeOf = (sent: unknown) =>
    JSON.parse(Buffer.from((sent as { response: { clientDataJSON: string } }).response.clientDataJSON, 'base64url').toString('utf8')).challenge as string;

  it('refuses a forged challengeToken: 401, and the challenge the authenticator signed is spent', async () => {
    needPasskey();
    const forged = await inPage('signIn', t.baseUrl, { forgedToken: 'A'.repeat(43) });
    expect(forged.status).toBe(401);
    expect(forged.body).not.toHaveProperty('token');
    // The genuine challenge was spent by the refused attempt: the signed answer opens nothing now.
    expect((await request(api.app).post('/api/auth/passkey').send({ ...(forged.sent as object), challengeToken: challengeOf(forged.sent) })).status).toBe(401);
  });

  it('with ?db= of another database, the passkey is refused there (401, no token); with its own, it signs in', async () => {
    needPasskey();
    // Options bound to the other database, the answer naming none, or naming the other: all refused.
    for (const how of [{ optionsFor: other.db }, { optionsFor: other.db, answerFor: other.db }, { answerFor: other.db }]) {
      const refused = await inPage('signIn', t.baseUrl, how);
      expect([JSON.stringify(how), refused.status, (refused.body as { token?: string } | undefined)?.token]).toEqual([JSON.stringify(how), 401, undefined]);
    }
    // The same passkey, options for its own database: the sign-in works, into that one only.
    const own = await inPage('signIn', t.baseUrl, { optionsFor: t.db, answerFor: t.db });
    expect(own.status).toBe(200);
    expect((own.body as { accounts: { _id: string }[] }).accounts.map((account) => account._id)).toEqual([t.db]);
  });

  it('keeps the SDK’s shapes working beside them', async () => {
    const options = await request(api.app).post('/api/auth/passkey/options').send({ db: t.db });
    expect([options.status, options.body.challengeToken]).toEqual([200, undefined]);
  });

  it.each([
    ['no token', undefined, { id: 'abc', rawId: 'abc', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'AA' }, challengeToken: 'A'.repeat(43) }],
    ['a malformed body', 'token', { id: 'x' }],
    ['an unknown field', 'token', { id: 'abc', rawId: 'abc', type: 'public-key', response: {}, challengeToken: 'A'.repeat(43), extra: 1 }],
    ['__proto__ as a field', 'token', JSON.parse(`{"id":"abc","rawId":"abc","type":"public-key","response":{},"challengeToken":"${'A'.repeat(43)}","__proto__":{"x":1}}`)],
    ['an oversized device name', 'token', { id: 'abc', rawId: 'abc', type: 'public-key', response: {}, challengeToken: 'A'.repeat(43), deviceName: 'x'.repeat(101) }],
    ['a forged challengeToken', 'token', { id: 'abc', rawId: 'abc', type: 'public-key', response: { clientDataJSON: 'e30', attestationObject: 'AA' }, challengeToken: 'A'.repeat(43) }],
  ])('registration refuses %s: 4xx, no passkey added', async (_, auth, body) => {
    const req = request(api.app).post(`/api/${t.db}/passkey`);
    const res = await (auth ? req.set('Authorization', person.auth) : req).send(body);
    expect(res.status).toBe(auth ? 400 : 401);
    const mine = await request(api.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', person.auth);
    expect(mine.body.entity._passkey ?? []).toHaveLength(registered ? 1 : 0);
  });

  it('refuses hostile sign-in input: 4xx, never 500', async () => {
    expect((await request(api.app).get('/api/auth/passkey').query({ db: '$where' })).status).toBe(400);
    expect((await request(api.app).get('/api/auth/passkey').query({ db: 'nosuchdatabase' })).status).toBe(404);
    expect((await request(api.app).get(`/api/${t.db}/passkey`)).status).toBe(401);
    const unknown = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' }, challengeToken: 'A'.repeat(43) };
    expect((await request(api.app).post('/api/auth/passkey').send(unknown)).status).toBe(401);
    expect((await request(api.app).post('/api/auth/passkey').send({ ...unknown, challengeToken: { $ne: null } })).status).toBe(400);
    expect((await request(api.app).post('/api/auth/passkey').send({ ...unknown, db: 'nosuchdatabase' })).status).toBe(401);
    // Missing fields, a field too many, `__proto__` as a field: the shape is refused before any ceremony.
    expect((await request(api.app).post('/api/auth/passkey').send({ challengeToken: 'A'.repeat(43) })).status).toBe(400);
    expect((await request(api.app).post('/api/auth/passkey').send({ ...unknown, extra: 1 })).status).toBe(400);
    expect((await request(api.app).post('/api/auth/passkey').send(JSON.parse(`{"__proto__":{"admin":true},${JSON.stringify(unknown).slice(1)}`))).status).toBe(400);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('refuses a real registration answer sent back with a forged challengeToken: 400, no passkey added', async () => {
    const mari = await t.newPerson('Mari');
    await request(api.app).post(`/api/${t.db}/entity/${mari.id}`).set('Authorization', t.owner.auth).send([{ type: '_viewer', reference: mari.id }]).expect(200);
    const forged = await inPage('register', t.baseUrl, mari.token, t.db, 'A'.repeat(43));
    expect(forged.status).toBe(400);
    // Sent again with the genuine token: that challenge was spent by the refused attempt.
    const sent = forged.sent as Record<string, unknown>;
    const again = await request(api.app).post(`/api/${t.db}/passkey`).set('Authorization', mari.auth).send({ ...sent, challengeToken: challengeOf(sent) });
    expect(again.status).toBe(400);
    const hers = await request(api.app).get(`/api/${t.db}/entity/${mari.id}`).set('Authorization', mari.auth);
    expect(hers.body.entity._passkey).toBeUndefined();
    // The same person and browser with the token the options gave: registered (what failed was the token).
    const genuine = await inPage('register', t.baseUrl, mari.token, t.db);
    expect(genuine.status).toBe(200);
    expect((await request(api.app).get(`/api/${t.db}/entity/${mari.id}`).set('Authorization', mari.auth)).body.entity._passkey).toHaveLength(1);
  });
});
