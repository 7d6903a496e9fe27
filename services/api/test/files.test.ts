import { EntiaClient } from '@entia/client';
import { startWorker, type RunningWorker } from '@entia/worker';
import { createHash, randomBytes } from 'node:crypto';
import { pino } from 'pino';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, writtenOf, type TestTenant } from './tenant';

const ID = /^[0-9a-f]{24}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Upload {
  url: string;
  method: string;
  headers: Record<string, string>;
}

interface FileValue {
  _id: string;
  type: string;
  filename: string;
  filesize: number;
  filetype: string;
  upload: Upload;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** PUT to a signed upload URL, with exactly the returned headers unless a test changes them. */
const put = (upload: Upload, body: Uint8Array, headers: Record<string, string> = upload.headers) =>
  fetch(upload.url, { method: upload.method, headers, body });

async function download(url: string): Promise<{ status: number; bytes: Buffer; headers: Headers; text: string }> {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, bytes, headers: res.headers, text: res.ok ? '' : bytes.toString('utf8') };
}

/**
 * The file name a Content-Disposition header gives a recipient (RFC 6266: `filename*` wins over
 * `filename`), parsed independently of the library the server uses.
 */
function nameIn(header: string): string | undefined {
  const extended = /;\s*filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header);
  if (extended) return decodeURIComponent(extended[1]!);
  const quoted = /;\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  return /;\s*filename\s*=\s*([^;\s"]+)/i.exec(header)?.[1];
}

/** Safe as a header: printable ASCII only, so no CR/LF, NUL or raw UTF-8 can split or break it. */
const SAFE_HEADER = /^[\x20-\x7e]+$/;

describe('file values: signed upload and download (SPEC §8, interface §2.2, §4.1, §7, §8)', () => {
  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let docType: string;

  beforeAll(async () => {
    api = testApi();
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    t = await testTenant(api);
    docType = await t.defineType('doc', [
      { name: 'title', type: 'string' },
      { name: 'photo', type: 'file' },
      { name: 'scan', type: 'file' },
      { name: 'attachment', type: 'file', list: true },
    ]);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await api?.close();
  });

  const propertyPath = (id: string) => `/api/${t.db}/property/${id}`;
  const getProperty = (id: string, auth: string = t.owner.auth, query = '') => request(api.app).get(`${propertyPath(id)}${query}`).set('Authorization', auth);
  /** Without any Authorization header: an anonymous caller (SPEC §6). */
  const getAnonymously = (id: string, query = '') => request(api.app).get(`${propertyPath(id)}${query}`);
  const post = (entityId: string, values: object[], app = api.app) =>
    request(app).post(`/api/${t.db}/entity/${entityId}`).set('Authorization', t.owner.auth).send(values);
  const doc = (values: object[] = []) => t.create([{ type: '_type', reference: docType }, ...values]);
  const file = (type: string, filename: string, filesize: number, filetype = 'application/octet-stream') => ({ type, filename, filesize, filetype });
  const keyOf = (entityId: string, valueId: string) => `${t.db}/${entityId}/${valueId}`;

  /** A new doc entity; returns its id. */
  async function newDoc(values: object[] = []): Promise<string> {
    const res = await doc(values);
    expect(res.status).toBe(201);
    return res.body._id as string;
  }

  /** Adds one file value to `entityId`, uploads `bytes` and returns the value. */
  async function uploaded(entityId: string, type: string, bytes: Uint8Array, filename = 'data.bin', filetype = 'application/octet-stream'): Promise<FileValue> {
    const res = await post(entityId, [file(type, filename, bytes.length, filetype)]);
    expect(res.status).toBe(200);
    const value = writtenOf(res.body, type)[0] as FileValue;
    const stored = await put(value.upload, bytes);
    expect(stored.status).toBe(200);
    return value;
  }

  async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await sleep(100);
    }
  }
  const gone = (key: string) => eventually(async () => !(await api.deps.objects.exists(key)), `object ${key} removed`);

  describe('POST of a file value', () => {
    it('returns the value with upload {url, method: PUT, headers: ACL, Content-Disposition, Content-Length, Content-Type}', async () => {
      const res = await doc([file('photo', 'cat.png', 1234, 'image/png')]);
      expect(res.status).toBe(201);
      const photo = res.body.properties.photo[0];
      expect(photo).toEqual({
        _id: expect.stringMatching(ID),
        type: 'photo',
        filename: 'cat.png',
        filesize: 1234,
        filetype: 'image/png',
        created: { at: expect.stringMatching(ISO), by: t.owner.id },
        upload: {
          url: expect.any(String),
          method: 'PUT',
          headers: { ACL: expect.any(String), 'Content-Disposition': expect.any(String), 'Content-Length': '1234', 'Content-Type': 'image/png' },
        },
      });
      expect(Object.keys(photo.upload.headers).sort()).toEqual(['ACL', 'Content-Disposition', 'Content-Length', 'Content-Type']);
      expect(photo.upload.headers['Content-Disposition']).toMatch(/^attachment;/);
      expect(nameIn(photo.upload.headers['Content-Disposition'])).toBe('cat.png');
      // Its own object key, <db>/<entity id>/<value id>, and the default upload lifetime of 15 minutes.
      const url = new URL(photo.upload.url);
      expect(decodeURIComponent(url.pathname)).toMatch(new RegExp(`/${keyOf(res.body._id, photo._id)}$`));
      expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
      expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    });

    it('adding a file value to an existing entity answers its upload too; the stored value has no upload', async () => {
      const id = await newDoc();
      const res = await post(id, [file('scan', 'scan.pdf', 10, 'application/pdf')]);
      expect(res.status).toBe(200);
      const [scan] = res.body.properties;
      expect(scan.type).toBe('scan');
      expect(scan.upload).toMatchObject({ method: 'PUT', headers: { 'Content-Length': '10', 'Content-Type': 'application/pdf' } });
      const entity = (await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).body.entity;
      expect(entity.scan).toEqual([{ _id: scan._id, type: 'scan', filename: 'scan.pdf', filesize: 10, filetype: 'application/pdf', created: expect.any(Object) }]);
    });

    it.each([
      ['filename missing', { filesize: 10, filetype: 'text/plain' }, 'filename'],
      ['filesize missing', { filename: 'a.txt', filetype: 'text/plain' }, 'filesize'],
      ['filetype missing', { filename: 'a.txt', filesize: 10 }, 'filetype'],
      ['a 0-byte file', { filename: 'a.txt', filesize: 0, filetype: 'text/plain' }, 'filesize'],
      ['a negative filesize', { filename: 'a.txt', filesize: -1, filetype: 'text/plain' }, 'filesize'],
      ['a fractional filesize', { filename: 'a.txt', filesize: 1.5, filetype: 'text/plain' }, 'filesize'],
      ['a filesize as a string', { filename: 'a.txt', filesize: '10', filetype: 'text/plain' }, 'filesize'],
      ['an empty filename', { filename: '', filesize: 10, filetype: 'text/plain' }, 'filename'],
      ['a filename over 255 characters', { filename: 'a'.repeat(256), filesize: 10, filetype: 'text/plain' }, 'filename'],
      ['a filetype that is no MIME type', { filename: 'a.txt', filesize: 10, filetype: 'text' }, 'filetype'],
    ])('refuses %s: 400 pointing at it, nothing written', async (_case, fields, field) => {
      const id = await newDoc([{ type: 'title', string: 'before' }]);
      const res = await post(id, [{ type: 'title', string: 'after' }, { type: 'photo', ...fields }]);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ pointer: `/1/${field}` })]));
      const entity = (await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).body.entity;
      expect(entity.title.map((v: { string: string }) => v.string)).toEqual(['before']);
      expect(entity.photo).toBeUndefined();
    });

    it('refuses a file field on a property that is not a file, and a value field on a file property', async () => {
      const id = await newDoc();
      expect((await post(id, [{ type: 'title', filename: 'a.txt', filesize: 1, filetype: 'text/plain' }])).status).toBe(400);
      expect((await post(id, [{ type: 'photo', string: 'a.txt' }])).status).toBe(400);
    });

    it('a file value cannot be overwritten by _id (400): add a new value instead', async () => {
      const id = await newDoc();
      const bytes = randomBytes(100);
      const photo = await uploaded(id, 'photo', bytes);
      const res = await post(id, [{ _id: photo._id, ...file('photo', 'other.bin', 50) }]);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/0/_id' })]);
      // Untouched: same metadata, same bytes.
      const after = await getProperty(photo._id);
      expect(after.body).toMatchObject({ filename: 'data.bin', filesize: 100 });
      expect((await download(after.body.url)).bytes.equals(bytes)).toBe(true);
    });
  });

  describe('PUT to the signed upload URL', () => {
    it('round-trips 5 MiB of binary data byte for byte: PUT with exactly the returned headers, GET property url', async () => {
      const bytes = randomBytes(5 * 1024 * 1024);
      bytes[0] = 0x00;
      bytes[1] = 0xff;
      bytes[2] = 0x0d;
      bytes[3] = 0x0a;
      const id = await newDoc();
      const photo = await uploaded(id, 'photo', bytes, 'big.raw', 'image/x-raw');
      expect(await api.deps.objects.exists(keyOf(id, photo._id))).toBe(true);

      const res = await getProperty(photo._id);
      expect(res.status).toBe(200);
      const got = await download(res.body.url);
      expect(got.status).toBe(200);
      expect(got.bytes.length).toBe(bytes.length);
      expect(sha(got.bytes)).toBe(sha(bytes));
      expect(got.headers.get('content-type')).toBe('image/x-raw');
      expect(nameIn(got.headers.get('content-disposition')!)).toBe('big.raw');
    });

    it('several file values in one POST get their own objects, and all upload', async () => {
      const parts = [randomBytes(1000), randomBytes(2000), randomBytes(3000), randomBytes(4000)];
      const res = await doc([
        file('photo', 'p.bin', parts[0]!.length),
        file('scan', 's.bin', parts[1]!.length),
        file('attachment', 'a1.bin', parts[2]!.length),
        file('attachment', 'a2.bin', parts[3]!.length),
      ]);
      expect(res.status).toBe(201);
      const values: FileValue[] = [res.body.properties.photo[0], res.body.properties.scan[0], ...res.body.properties.attachment];
      expect(values).toHaveLength(4);
      const paths = values.map((v) => new URL(v.upload.url).pathname);
      expect(new Set(paths).size).toBe(4);
      values.forEach((v, i) => expect(decodeURIComponent(paths[i]!)).toMatch(new RegExp(`/${keyOf(res.body._id, v._id)}$`)));

      const statuses = await Promise.all(values.map((v, i) => put(v.upload, parts[i]!).then((r) => r.status)));
      expect(statuses).toEqual([200, 200, 200, 200]);
      for (const [i, v] of values.entries()) {
        const url = (await getProperty(v._id)).body.url;
        expect((await download(url)).bytes.equals(parts[i]!)).toBe(true);
      }
    });

    it('refuses a PUT of another length or type (403), or without or with another Content-Disposition; stores nothing', async () => {
      const id = await newDoc();
      const bytes = randomBytes(100);
      const res = await post(id, [file('photo', 'x.png', bytes.length, 'image/png')]);
      const { upload, _id } = writtenOf(res.body, 'photo')[0] as FileValue;
      const longer = randomBytes(101);
      const shorter = bytes.subarray(0, 99);
      const noDisposition = Object.fromEntries(Object.entries(upload.headers).filter(([name]) => name !== 'Content-Disposition'));

      expect((await put(upload, longer, { ...upload.headers, 'Content-Length': '101' })).status).toBe(403);
      expect((await put(upload, shorter, { ...upload.headers, 'Content-Length': '99' })).status).toBe(403);
      expect((await put(upload, bytes, { ...upload.headers, 'Content-Type': 'text/html' })).status).toBe(403);
      // A signed header left out is refused too (MinIO: 400, as the request is incomplete).
      expect((await put(upload, bytes, noDisposition)).status).toBe(400);
      expect((await put(upload, bytes, { ...upload.headers, 'Content-Disposition': 'inline; filename=evil.html' })).status).toBe(403);
      expect(await api.deps.objects.exists(keyOf(id, _id))).toBe(false);

      // The right PUT still works afterwards.
      expect((await put(upload, bytes)).status).toBe(200);
      expect(await api.deps.objects.exists(keyOf(id, _id))).toBe(true);
    });

    it('refuses an expired upload URL (UPLOAD_URL_TTL_SECONDS=1): 403 "Request has expired"', async () => {
      const short = testApi({ UPLOAD_URL_TTL_SECONDS: '1' });
      try {
        const id = await newDoc();
        const bytes = randomBytes(100);
        const res = await post(id, [file('photo', 'late.bin', bytes.length)], short.app);
        expect(res.status).toBe(200);
        const { upload, _id } = writtenOf(res.body, 'photo')[0] as FileValue;
        expect(new URL(upload.url).searchParams.get('X-Amz-Expires')).toBe('1');
        await sleep(2100);
        const late = await put(upload, bytes);
        expect(late.status).toBe(403);
        expect(await late.text()).toContain('Request has expired');
        expect(await api.deps.objects.exists(keyOf(id, _id))).toBe(false);
      } finally {
        await short.close();
      }
    });

    it('MAX_FILE_BYTES is enforced: a filesize over it is 400 at /n/filesize; exactly it is accepted', async () => {
      const small = testApi({ MAX_FILE_BYTES: '1000' });
      try {
        const id = await newDoc();
        const over = await post(id, [{ type: 'title', string: 'x' }, file('photo', 'big.bin', 1001)], small.app);
        expect(over.status).toBe(400);
        expect(over.body.errors).toEqual([expect.objectContaining({ pointer: '/1/filesize' })]);
        const at = await post(id, [file('photo', 'ok.bin', 1000)], small.app);
        expect(at.status).toBe(200);
        expect(writtenOf(at.body, 'photo')[0]!.upload.headers['Content-Length']).toBe('1000');
      } finally {
        await small.close();
      }
    });
  });

  describe('GET /api/{db}/property/{id}: the signed download URL', () => {
    let entityId: string;
    let photo: FileValue;
    const bytes = randomBytes(4096);

    beforeAll(async () => {
      entityId = await newDoc();
      photo = await uploaded(entityId, 'photo', bytes, 'photo.jpg', 'image/jpeg');
    });

    it('answers the value with a url living 60 s, Cache-Control: no-store, that downloads the file', async () => {
      const res = await getProperty(photo._id);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        _id: photo._id,
        type: 'photo',
        filename: 'photo.jpg',
        filesize: 4096,
        filetype: 'image/jpeg',
        created: { at: expect.stringMatching(ISO), by: t.owner.id },
        url: expect.any(String),
      });
      const url = new URL(res.body.url);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
      expect(decodeURIComponent(url.pathname)).toMatch(new RegExp(`/${keyOf(entityId, photo._id)}$`));
      const got = await download(res.body.url);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(bytes)).toBe(true);
      // A JPEG is shown in the browser (issue 32, item 11: file-display.test.ts).
      expect(got.headers.get('content-disposition')).toMatch(/^inline;/);
    });

    it('is fresh on every call: signed anew (another date and signature a second later), never a cached answer', async () => {
      const first = await getProperty(photo._id);
      await sleep(1100);
      const second = await getProperty(photo._id).set('If-None-Match', first.headers.etag ?? '*');
      expect(second.status).toBe(200);
      expect(second.headers['cache-control']).toBe('no-store');
      const [a, b] = [new URL(first.body.url), new URL(second.body.url)];
      expect(b.searchParams.get('X-Amz-Date')).not.toBe(a.searchParams.get('X-Amz-Date'));
      expect(b.searchParams.get('X-Amz-Signature')).not.toBe(a.searchParams.get('X-Amz-Signature'));
      expect((await download(second.body.url)).bytes.equals(bytes)).toBe(true);
    });

    it('a conditional GET never answers 304: every answer carries a url (signed URLs are never cached, SPEC §10)', async () => {
      // Both calls early in one second: the same signing date, so the same body and ETag.
      const intoSecond = Date.now() % 1000;
      if (intoSecond > 200) await sleep(1010 - intoSecond);
      const first = await getProperty(photo._id);
      expect(first.status).toBe(200);
      const again = await getProperty(photo._id).set('If-None-Match', first.headers.etag ?? '*');
      expect(again.status).toBe(200);
      expect(again.body.url).toEqual(expect.any(String));
      expect((await download(again.body.url)).bytes.equals(bytes)).toBe(true);
    });

    it('expiry is enforced by storage: an expired URL and a URL whose lifetime or key was tampered with fail (403)', async () => {
      const key = keyOf(entityId, photo._id);
      const shortLived = await api.deps.objects.presignDownload(key, 'photo.jpg', 1);
      expect((await download(shortLived)).status).toBe(200);

      const url = new URL((await getProperty(photo._id)).body.url);
      const longer = new URL(url);
      longer.searchParams.set('X-Amz-Expires', '3600');
      expect((await download(longer.toString())).status).toBe(403);
      const other = new URL(url);
      other.pathname = other.pathname.replace(photo._id, '0'.repeat(24));
      expect((await download(other.toString())).status).toBe(403);

      await sleep(2100);
      const expired = await download(shortLived);
      expect(expired.status).toBe(403);
      expect(expired.text).toContain('Request has expired');
    });

    it('?download=true answers 302 to a working signed URL, not cached', async () => {
      const res = await getProperty(photo._id, t.owner.auth, '?download=true');
      expect(res.status).toBe(302);
      expect(res.headers['cache-control']).toBe('no-store');
      const location = res.headers.location!;
      expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('60');
      const got = await download(location);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(bytes)).toBe(true);
    });

    it('a file not uploaded yet: 200 with its metadata, but ?download=true is 404', async () => {
      const res = await post(entityId, [file('scan', 'pending.pdf', 10, 'application/pdf')]);
      const scan = writtenOf(res.body, 'scan')[0] as FileValue;
      const meta = await getProperty(scan._id);
      expect(meta.status).toBe(200);
      expect(meta.body).toMatchObject({ _id: scan._id, type: 'scan', filename: 'pending.pdf', filesize: 10, filetype: 'application/pdf' });
      expect(meta.body.upload).toBeUndefined();
      const dl = await getProperty(scan._id, t.owner.auth, '?download=true');
      expect(dl.status).toBe(404);
      expect(dl.headers.location).toBeUndefined();
    });

    it('a value that is not a file answers without url; ?download=true on it is 404', async () => {
      const res = await post(entityId, [{ type: 'title', string: 'Holiday' }]);
      const title = writtenOf(res.body, 'title')[0]!;
      const meta = await getProperty(title._id);
      expect(meta.status).toBe(200);
      expect(meta.body).toEqual({ _id: title._id, type: 'title', string: 'Holiday', created: expect.any(Object) });
      expect((await getProperty(title._id, t.owner.auth, '?download=true')).status).toBe(404);
    });

    it("another tenant's property id, a caller without read right, and a malformed id all answer 404", async () => {
      const other = await testTenant(api);
      try {
        const res = await request(api.app).get(`/api/${other.db}/property/${photo._id}`).set('Authorization', other.owner.auth);
        expect(res.status).toBe(404);
        expect(res.body.url).toBeUndefined();
        const dl = await request(api.app).get(`/api/${other.db}/property/${photo._id}?download=true`).set('Authorization', other.owner.auth);
        expect(dl.status).toBe(404);
        expect(dl.headers.location).toBeUndefined();
      } finally {
        await other.close();
      }
      const stranger = await t.newPerson('Stranger');
      expect((await getProperty(photo._id, stranger.auth)).status).toBe(404);
      expect((await getProperty(photo._id, stranger.auth, '?download=true')).status).toBe(404);
      expect((await getProperty('not-an-id')).status).toBe(404);
    });
  });

  describe('public and private entities', () => {
    it('a file on a public entity can be downloaded anonymously; on a private one it cannot (404)', async () => {
      const bytes = randomBytes(777);
      const publicId = await newDoc([{ type: '_sharing', string: 'public' }]);
      const privateId = await newDoc();
      const open = await uploaded(publicId, 'photo', bytes, 'open.png', 'image/png');
      const closed = await uploaded(privateId, 'photo', bytes, 'closed.png', 'image/png');

      const anonymous = await getAnonymously(open._id);
      expect(anonymous.status).toBe(200);
      expect(anonymous.headers['cache-control']).toBe('no-store');
      expect((await download(anonymous.body.url)).bytes.equals(bytes)).toBe(true);
      const redirect = await getAnonymously(open._id, '?download=true');
      expect(redirect.status).toBe(302);
      expect((await download(redirect.headers.location!)).bytes.equals(bytes)).toBe(true);

      const refused = await getAnonymously(closed._id);
      expect(refused.status).toBe(404);
      expect(refused.body.url).toBeUndefined();
      expect((await getAnonymously(closed._id, '?download=true')).status).toBe(404);
    });
  });

  describe('Content-Disposition carries any file name safely (RFC 6266 / 5987)', () => {
    it.each([
      ['quotes and a backslash', 'say "hi" \\ bye.txt'],
      ['CR LF (header injection)', 'a\r\nSet-Cookie: x=1\r\n\r\n.txt'],
      ['control characters and a semicolon', 'tab\there; filename=evil.exe\u0000.txt'],
      ['non-ASCII', 'Õunad ja 🍎 — ščž.jpg'],
      ['255 characters of non-ASCII', `${'õ'.repeat(251)}.txt`],
    ])('%s: in the upload header and in the download response', async (_case, name) => {
      const bytes = Buffer.from(`content of ${name}`);
      const id = await newDoc();
      const res = await post(id, [file('attachment', name, bytes.length, 'text/plain')]);
      expect(res.status).toBe(200);
      const value = writtenOf(res.body, 'attachment')[0] as FileValue;
      expect(value.filename).toBe(name);

      const header = value.upload.headers['Content-Disposition']!;
      expect(header).toMatch(SAFE_HEADER);
      expect(header).toMatch(/^attachment;/);
      expect(nameIn(header)).toBe(name);
      expect((await put(value.upload, bytes)).status).toBe(200);

      const meta = await getProperty(value._id);
      expect(meta.body.filename).toBe(name);
      const got = await download(meta.body.url);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(bytes)).toBe(true);
      const served = got.headers.get('content-disposition')!;
      expect(served).toMatch(SAFE_HEADER);
      expect(nameIn(served)).toBe(name);
      expect(got.headers.get('set-cookie')).toBeNull();

      const redirect = await getProperty(value._id, t.owner.auth, '?download=true');
      expect(redirect.status).toBe(302);
      expect(redirect.headers.location).toMatch(SAFE_HEADER);
    });
  });

  describe('removal: the object goes with its value (worker)', () => {
    it('DELETE of a file value removes its object', async () => {
      const id = await newDoc();
      const photo = await uploaded(id, 'photo', randomBytes(100));
      const key = keyOf(id, photo._id);
      expect(await api.deps.objects.exists(key)).toBe(true);
      const res = await request(api.app).delete(propertyPath(photo._id)).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true });
      expect((await getProperty(photo._id)).status).toBe(404);
      await gone(key);
    });

    it('deleting the entity removes the objects of all its file values', async () => {
      const id = await newDoc();
      const values = [await uploaded(id, 'photo', randomBytes(10)), await uploaded(id, 'attachment', randomBytes(20)), await uploaded(id, 'attachment', randomBytes(30))];
      const res = await request(api.app).delete(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      for (const value of values) expect((await getProperty(value._id)).status).toBe(404);
      await Promise.all(values.map((value) => gone(keyOf(id, value._id))));
    });

    it('a replaced non-list file value loses its object; a list keeps the others', async () => {
      const id = await newDoc();
      const oldPhoto = await uploaded(id, 'photo', randomBytes(10));
      const firstAttachment = await uploaded(id, 'attachment', randomBytes(10));

      const replacement = randomBytes(20);
      const res = await post(id, [file('photo', 'new.bin', replacement.length), file('attachment', 'second.bin', 5)]);
      expect(res.status).toBe(200);
      const newPhoto = writtenOf(res.body, 'photo')[0] as FileValue;
      expect(newPhoto._id).not.toBe(oldPhoto._id);
      expect((await put(newPhoto.upload, replacement)).status).toBe(200);

      expect((await getProperty(oldPhoto._id)).status).toBe(404);
      await gone(keyOf(id, oldPhoto._id));
      expect(await api.deps.objects.exists(keyOf(id, firstAttachment._id))).toBe(true);
      expect(await api.deps.objects.exists(keyOf(id, newPhoto._id))).toBe(true);
      const entity = (await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).body.entity;
      expect(entity.photo.map((v: { _id: string }) => v._id)).toEqual([newPhoto._id]);
      expect(entity.attachment).toHaveLength(2);
    });
  });

  describe('the client helper against the real API and MinIO', () => {
    it('uploadFile creates the value, PUTs the bytes, and getProperty gives a url that downloads them', async () => {
      const client = new EntiaClient({ baseUrl: t.baseUrl, apiKey: t.owner.apiKey, db: t.db });
      const db = client.db();
      const id = await newDoc();
      const bytes = randomBytes(1024 * 1024 + 7);
      const value = await db.uploadFile(id, { type: 'attachment', filename: 'Über "report".bin', filetype: 'application/octet-stream', data: bytes });
      expect(value).toMatchObject({ type: 'attachment', filename: 'Über "report".bin', filesize: bytes.length });
      expect(value).not.toHaveProperty('upload');
      expect(await api.deps.objects.exists(keyOf(id, value._id))).toBe(true);

      const fetched = await db.getProperty(value._id);
      const got = await download(fetched.url!);
      expect(got.status).toBe(200);
      expect(sha(got.bytes)).toBe(sha(bytes));
      expect(nameIn(got.headers.get('content-disposition')!)).toBe('Über "report".bin');
    });
  });
});
