import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { CHROMIUM_LAUNCH } from './chromium';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// The API as a web app on another origin uses it (its change feed through EventSource too): a real headless Chromium (Debian's, installed by
// `npm test` when missing) loads browser-page.html from a server on another port, and that page
// talks to the API and to storage with fetch() alone. The browser enforces CORS, so this shows
// what no HTTP-level test can: that a page may send these requests and read their answers.

const PAGE = readFileSync(join(__dirname, 'browser-page.html'));

/** A tiny static server for the page; each one is an origin of its own (its port). */
async function pageServer(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('a browser page on another origin (CORS, conditional requests, signed upload)', () => {
  let allowed: { origin: string; server: Server };
  let other: { origin: string; server: Server };
  let api: TestApi;
  let t: TestTenant;
  let docType: string;
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    [allowed, other] = await Promise.all([pageServer(), pageServer()]);
    api = testApi({ CORS_ORIGINS: allowed.origin });
    t = await testTenant(api);
    docType = await t.defineType('doc', [
      { name: 'title', type: 'string' },
      { name: 'attachment', type: 'file', list: true },
    ]);
    profile = mkdtempSync(join(tmpdir(), 'entia-chromium-'));
    browser = await chromium.launchPersistentContext(profile, CHROMIUM_LAUNCH);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await Promise.all([allowed, other].filter(Boolean).map(({ server }) => close(server)));
    await t?.close();
    await api?.close();
  });

  /** Opens the page from `origin` and returns what its script wrote into #out. */
  async function run(origin: string, mode: 'allowed' | 'refused'): Promise<any> {
    const params = new URLSearchParams({ mode, api: t.baseUrl, key: t.owner.apiKey, db: t.db, type: docType });
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/?${params}`, { timeout: 10_000 });
      await page.waitForSelector('body[data-done]', { state: 'attached', timeout: 15_000 });
      return JSON.parse(await page.textContent('#out', { timeout: 1_000 }) ?? 'null');
    } finally {
      await page.close();
    }
  }

  it('exchanges its key, creates, lists, gets 304 on revalidation and uploads through the signed URL', async () => {
    const results = await run(allowed.origin, 'allowed');
    expect(results.failed).toBeUndefined();
    expect(results.auth).toEqual({ status: 200, token: true, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(results.create).toEqual({ status: 201, id: expect.stringMatching(/^[0-9a-f]{24}$/), location: `/api/${t.db}/entity/${results.create.id}` });
    expect(results.list).toEqual({ status: 200, titles: ['Written by a browser'], cache: expect.stringMatching(/^(hit|miss)$/) });
    expect(results.conditional).toEqual({ first: 200, etag: expect.stringMatching(/^"[A-Za-z0-9_-]+"$/), again: 304, noStore: 304 });
    expect(results.upload).toEqual({ value: 200, put: 200, download: 200, text: 'hello from a browser page\n' });
    // Issue 18: an EventSource on another origin, opened with a ticket, receives the page's own change.
    expect(results.changes).toEqual({ ticket: 201, entity: true, kind: 'created', title: 'Seen by an EventSource' });
  }, 30_000);

  it('is refused by the browser when its origin is not in CORS_ORIGINS', async () => {
    const results = await run(other.origin, 'refused');
    expect(results).toEqual({ auth: { error: 'TypeError' }, health: { error: 'TypeError' } });
  }, 30_000);
});
