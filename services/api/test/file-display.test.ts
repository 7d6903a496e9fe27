import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, writtenOf, type TestTenant } from './tenant';

/** The smallest PNG there is: one transparent pixel. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>');
const HTML = Buffer.from('<!doctype html><script>alert(document.domain)</script>');
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
const TEXT = Buffer.from('Õunad\n');

/** The file name a Content-Disposition header gives (RFC 6266: `filename*` wins). */
const nameIn = (header: string) => {
  const extended = /;\s*filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header);
  return extended ? decodeURIComponent(extended[1]!) : /;\s*filename\s*=\s*"?([^";]+)"?/i.exec(header)?.[1];
};

// Issue 32, item 11: the `url` of a file value shows it in the browser when nothing of it can run;
// `?download=true` always saves it. Against the stack's MinIO, as a browser would fetch the URL.
describe('file values: shown inline when safe, saved otherwise', () => {
  let api: TestApi;
  let t: TestTenant;
  let entityId: string;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    const type = await t.defineType('doc', [{ name: 'attachment', type: 'file', list: true }]);
    const res = await t.create([{ type: '_type', reference: type }]);
    expect(res.status).toBe(201);
    entityId = res.body._id;
  });
  afterAll(async () => {
    await t?.close();
    await api?.close();
  });

  /** A file value of `filetype` holding `bytes`, uploaded; its id. */
  async function uploaded(filename: string, filetype: string, bytes: Buffer): Promise<string> {
    const res = await request(api.app)
      .post(`/api/${t.db}/entity/${entityId}`)
      .set('Authorization', t.owner.auth)
      .send([{ type: 'attachment', filename, filesize: bytes.length, filetype }]);
    expect(res.status).toBe(200);
    const value = writtenOf(res.body, 'attachment')[0]!;
    expect((await fetch(value.upload.url, { method: 'PUT', headers: value.upload.headers, body: bytes })).status).toBe(200);
    return value._id;
  }
  const property = (id: string, query = '') => request(api.app).get(`/api/${t.db}/property/${id}${query}`).set('Authorization', t.owner.auth);
  async function served(url: string): Promise<{ disposition: string; type: string | null; nosniff: string | null; bytes: Buffer }> {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    return { disposition: res.headers.get('content-disposition')!, type: res.headers.get('content-type'), nosniff: res.headers.get('x-content-type-options'), bytes: Buffer.from(await res.arrayBuffer()) };
  }

  it.each([
    ['a PNG', 'pixel.png', 'image/png', PNG, 'image/png'],
    ['a PNG declared in capitals', 'PIXEL.PNG', 'IMAGE/PNG', PNG, 'image/png'],
    ['a PDF', 'report.pdf', 'application/pdf', PDF, 'application/pdf'],
    ['plain text', 'õunad.txt', 'text/plain', TEXT, 'text/plain; charset=utf-8'],
  ])('%s: its url shows it inline, under its name, as %s', async (_case, filename, filetype, bytes, shownAs) => {
    const id = await uploaded(filename, filetype, bytes);
    const file = await served((await property(id)).body.url);
    expect(file.disposition).toMatch(/^inline;/);
    expect(nameIn(file.disposition)).toBe(filename);
    expect(file.type).toBe(shownAs);
    expect(file.bytes.equals(bytes)).toBe(true);
  });

  it.each([
    ['an SVG (it can hold script)', 'logo.svg', 'image/svg+xml', SVG],
    ['an HTML page', 'page.html', 'text/html', HTML],
    ['XML', 'data.xml', 'application/xml', SVG],
    ['JavaScript', 'app.js', 'text/javascript', HTML],
    ['an HTML page declared as something unknown', 'page.bin', 'application/octet-stream', HTML],
  ])('%s: its url saves it as an attachment', async (_case, filename, filetype, bytes) => {
    const id = await uploaded(filename, filetype, bytes);
    const file = await served((await property(id)).body.url);
    expect(file.disposition).toMatch(/^attachment;/);
    expect(nameIn(file.disposition)).toBe(filename);
    // MinIO sends nosniff on every object answer: a browser never guesses HTML from the bytes.
    expect(file.nosniff).toBe('nosniff');
  });

  it('?download=true of a PNG redirects to a URL that saves it', async () => {
    const id = await uploaded('pixel.png', 'image/png', PNG);
    const redirect = await property(id, '?download=true');
    expect(redirect.status).toBe(302);
    expect(redirect.headers['cache-control']).toBe('no-store');
    const file = await served(redirect.headers.location!);
    expect(file.disposition).toMatch(/^attachment;/);
    expect(nameIn(file.disposition)).toBe('pixel.png');
  });

  it('the inline answer is part of the signature: changing it in the URL is refused', async () => {
    const id = await uploaded('pixel.png', 'image/png', PNG);
    const url = new URL((await property(id)).body.url);
    url.searchParams.set('response-content-type', 'text/html');
    expect((await fetch(url)).status).toBe(403);
  });
});
