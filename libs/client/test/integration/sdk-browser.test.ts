import { build, stop as stopEsbuild, type Metafile } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import request from 'supertest';
import { ROOT, SDK_BUNDLE, closeServer as close, ensureSdkBuild, pageServer, type PageSite } from '../../../../services/api/test/sdk-page';
import { CHROMIUM_LAUNCH } from '../../../../services/api/test/chromium';
import { testApi, type TestApi } from '../../../../services/api/test/support';
import { testTenant, type Definition, type Person, type TestTenant } from '../../../../services/api/test/tenant';

// The SDK as a web app on another origin uses it: the package's published build (what `import
// '@entia/client'` resolves to through its `exports`: libs/client/dist/index.mjs) bundled by esbuild
// for the browser, in a page that a real headless Chromium loads from a second local server. The
// page signs in with an API key, lists and creates entities by name, and uploads a `File` made in
// the page straight to object storage through the signed URL, then downloads it back. The browser
// enforces CORS (the API's and the storage's) and has no Node globals, so this shows what the
// Node tests of the SDK cannot: that it works as a browser runs it.

const ENTRY = join(__dirname, 'sdk-browser-entry.ts');
const PAGE = readFileSync(join(__dirname, 'sdk-browser-page.html'));

describe('the SDK bundled for a browser page on another origin', () => {
  jest.setTimeout(120_000);

  let script: string;
  let metafile: Metafile;
  let site: PageSite;
  let api: TestApi;
  let t: TestTenant;
  let reader: Person;
  let bookType: string;
  let profile: string;
  let browser: BrowserContext;
  /** What the page reported, for the checks through the API. */
  let report: any;
  // Bytes beyond ASCII, and a line end: the download must give back exactly these.
  const content = `The cover of Dune — épice, ✓ ${Date.now()}\r\nsecond line\n`;

  beforeAll(async () => {
    ensureSdkBuild();
    // Nothing marked external: a Node built-in anywhere in the SDK fails this build for the browser.
    const bundled = await build({
      entryPoints: [ENTRY],
      absWorkingDir: ROOT,
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
      // No alias: `@entia/client` resolves as a user's bundler resolves it, through node_modules and
      // the package's `exports` (its `import` entry); the first test checks that this is SDK_BUNDLE.
    });
    script = bundled.outputFiles[0]!.text;
    metafile = bundled.metafile;

    site = await pageServer(PAGE, 'sdk-browser-entry.js', script);
    api = testApi({ CORS_ORIGINS: site.origin });
    t = await testTenant(api);
    reader = await t.newPerson('Reader');
    // The type and its definitions shared with the domain, so the reader (not the owner) sees them in the schema and may write them.
    bookType = await t.defineType('book', []);
    const definitions: Definition[] = [
      { name: 'title', type: 'string', mandatory: true },
      { name: 'tags', type: 'string', list: true },
      { name: 'pages', type: 'number' },
      { name: 'cover', type: 'file' },
    ];
    for (const definition of definitions) {
      const id = await t.defineProperty(bookType, definition);
      const shared = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: '_sharing', string: 'domain' }]);
      if (shared.status !== 200) throw new Error(`sharing ${definition.name} failed: ${shared.status} ${JSON.stringify(shared.body)}`);
    }
    // Books of the owner: three the reader may read (domain), one it may not (private).
    const seeds = [
      { title: 'Short', pages: 90, sharing: 'domain' },
      { title: 'Middle', pages: 250, sharing: 'domain' },
      { title: 'Long', pages: 800, sharing: 'domain' },
      { title: 'Secret', pages: 500, sharing: 'private' },
    ];
    for (const seed of seeds) {
      const res = await t.create([
        { type: '_type', reference: bookType },
        { type: 'title', string: seed.title },
        { type: 'pages', number: seed.pages },
        { type: 'tags', string: 'seed' },
        { type: '_sharing', string: seed.sharing },
      ]);
      if (res.status !== 201) throw new Error(`seeding ${seed.title} failed: ${res.status} ${JSON.stringify(res.body)}`);
    }

    profile = mkdtempSync(join(tmpdir(), 'entia-chromium-'));
    browser = await chromium.launchPersistentContext(profile, CHROMIUM_LAUNCH);
  }, 240_000);

  afterAll(async () => {
    // esbuild's service process is a child of this one: tests run in band on two cores.
    await stopEsbuild();
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    if (site) await close(site.server);
    await t?.close();
    await api?.close();
  });

  it('bundles from the published build with no Node built-ins', () => {
    const inputs = Object.keys(metafile.inputs).map((input) => join(ROOT, input));
    // The entry and the package's ESM build (its one dependency inlined there), nothing else.
    expect(inputs.sort()).toEqual([SDK_BUNDLE, ENTRY].sort());
    for (const [input, { imports }] of Object.entries(metafile.inputs)) {
      for (const imported of imports) expect({ input, path: imported.path, external: imported.external ?? false }).toEqual({ input, path: expect.not.stringMatching(/^node:/), external: false });
    }
    const [output] = Object.values(metafile.outputs);
    expect(output!.imports).toEqual([]);
    // No CommonJS shim (`__require` throws in a browser) and no Node global in the code itself.
    expect(script).not.toMatch(/__require|\bBuffer\b|\bprocess\b|\brequire\(|__dirname|__filename|setImmediate/);
  });

  it('signs in, lists and creates by name, uploads a File and downloads it, from the page', async () => {
    const problems: string[] = [];
    const params = new URLSearchParams({ api: t.baseUrl, key: reader.apiKey, db: t.db, content });
    const page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console.${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.name}: ${error.message}`));
    // A request the browser refused or could not send (CORS, network). Not the PUT of the upload
    // whose answer arrived and whose empty body the SDK then cancelled (`response.body.cancel()`):
    // Chromium reports that as net::ERR_ABORTED although the storage took the bytes.
    const failures: Promise<void>[] = [];
    page.on('requestfailed', (req) =>
      failures.push(
        req.response().then((res) => {
          const cancelled = req.method() === 'PUT' && res !== null && res.ok() && req.failure()?.errorText === 'net::ERR_ABORTED';
          if (!cancelled) problems.push(`request failed: ${req.method()} ${req.url()}: ${req.failure()?.errorText} (answer: ${res?.status() ?? 'none'})`);
        }),
      ),
    );
    try {
      await page.goto(`${site.origin}/?${params}`, { timeout: 60_000 });
      await page.waitForSelector('body[data-done]', { state: 'attached', timeout: 90_000 });
      report = JSON.parse((await page.textContent('#out', { timeout: 10_000 })) ?? 'null');
      await Promise.all(failures);
    } finally {
      await page.close();
    }

    // Everything at once, so a failure shows the page's own account next to the browser's.
    expect({ failed: report.failed, problems, nodeGlobalsHit: report.nodeGlobalsHit }).toEqual({ failed: undefined, problems: [], nodeGlobalsHit: [] });

    expect(report.auth).toEqual({ token: true, accounts: [{ db: t.db, user: reader.id }] });
    // Domain books of 100 pages or more, most pages first; the owner's private one stays out of view.
    expect(report.list).toEqual({ count: 2, titles: ['Long', 'Middle'], pages: [800, 250], types: ['book', 'book'] });

    const id = report.created._id as string;
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(report.created).toEqual(expect.objectContaining({ _id: id, _type: 'book', title: 'Dune', tags: ['sf'], _owner: [reader.id] }));
    expect(report.created.pages).toBeUndefined();

    const size = Buffer.byteLength(content, 'utf8');
    expect(report.upload).toEqual({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), filename: 'cover.txt', filesize: size, filetype: 'text/plain' });
    expect(report.download).toEqual({
      status: 200,
      text: content,
      value: expect.objectContaining({ _id: report.upload._id, type: 'cover', filename: 'cover.txt', filesize: size, filetype: 'text/plain' }),
    });
    expect(report.download.value.url).toBeUndefined();
    expect(report.readBack).toEqual(expect.objectContaining({ _id: id, _type: 'book', title: 'Dune', tags: ['sf'], cover: report.upload }));
  });

  it('left in the database what the page says it did (read through the API from Node)', async () => {
    if (!report?.created?._id || !report?.upload?._id) throw new Error('the page did not get as far as the upload; see the test before');
    const id = report.created._id as string;
    const asReader = (path: string) => request(api.app).get(`/api/${t.db}${path}`).set('Authorization', reader.auth);

    const listed = await asReader(`/entity?_type.reference=${bookType}&pages.number.gte=100&sort=-pages.number&props=title`);
    expect(listed.status).toBe(200);
    expect(listed.body.entities.map((entity: any) => entity.title[0].string)).toEqual(report.list.titles);

    // As the reader: the entity is theirs (private to them, the database's owner included).
    const got = await asReader(`/entity/${id}`);
    expect(got.status).toBe(200);
    const { entity } = got.body;
    expect(entity._type).toEqual([expect.objectContaining({ reference: bookType })]);
    expect(entity._owner).toEqual([expect.objectContaining({ reference: reader.id })]);
    expect(entity.title).toEqual([expect.objectContaining({ string: 'Dune' })]);
    expect(entity.tags).toEqual([expect.objectContaining({ string: 'sf' })]);
    expect(entity.pages).toBeUndefined();
    const size = Buffer.byteLength(content, 'utf8');
    expect(entity.cover).toEqual([expect.objectContaining({ _id: report.upload._id, filename: 'cover.txt', filesize: size, filetype: 'text/plain' })]);

    // The bytes in storage, fetched from Node through a fresh signed URL: exactly those the page uploaded.
    const property = await asReader(`/property/${report.upload._id}`);
    expect(property.status).toBe(200);
    const stored = await fetch(property.body.url);
    expect(stored.status).toBe(200);
    expect(Buffer.from(await stored.arrayBuffer())).toEqual(Buffer.from(content, 'utf8'));
  });
});
