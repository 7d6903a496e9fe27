import { EntiaClient, EntiaError } from '@entia/client';
import { THUMBNAIL_SIZES } from '@entia/domain';
import { startWorker, type RunningWorker } from '@entia/worker';
import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { pino } from 'pino';
import sharp from 'sharp';
import request from 'supertest';
import { eventually } from './eventually';
import { testApi, type TestApi } from './support';
import { testTenant, writtenOf, type Person, type TestTenant } from './tenant';

// Issue 16: thumbnails of image file values, against the real API, MinIO and worker. Every image
// is made here with sharp; every thumbnail is downloaded through its signed URL and decoded.

interface Upload {
  url: string;
  method: string;
  headers: Record<string, string>;
}

interface FileValue {
  _id: string;
  type: string;
  upload: Upload;
}

type RGB = [number, number, number];
const RED: RGB = [255, 0, 0];
const GREEN: RGB = [0, 255, 0];
const BLUE: RGB = [0, 0, 255];

/** An image of `width`×`height` in stripes of these colours, side by side (or stacked). */
async function stripes(width: number, height: number, colours: RGB[], direction: 'across' | 'down'): Promise<sharp.Sharp> {
  const channels = 3;
  const pixels = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const band = Math.min(colours.length - 1, Math.floor(((direction === 'across' ? x / width : y / height) * colours.length)));
      pixels.set(colours[band]!, (y * width + x) * channels);
    }
  }
  return sharp(pixels, { raw: { width, height, channels } });
}

/** Noise of `width`×`height`, which compresses badly: a source that takes a while to render. */
const noise = (width: number, height: number) => sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } });

/** A PNG whose header declares `width`×`height` and whose pixel data is a few bytes: a decompression bomb. */
function pngDeclaring(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', Buffer.from([0x78, 0x9c, 0x03, 0x00])), chunk('IEND', Buffer.alloc(0))]);
}

/** A real JPEG whose frame header is rewritten to declare `width`×`height`. */
async function jpegDeclaring(width: number, height: number): Promise<Buffer> {
  const bytes = await (await stripes(64, 48, [RED, BLUE], 'across')).jpeg().toBuffer();
  for (let at = 2; at < bytes.length - 9; at += 1) {
    if (bytes[at] === 0xff && (bytes[at + 1] === 0xc0 || bytes[at + 1] === 0xc2)) {
      bytes.writeUInt16BE(height, at + 5);
      bytes.writeUInt16BE(width, at + 7);
      return bytes;
    }
  }
  throw new Error('no frame header in the JPEG');
}

async function download(url: string): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
  const res = await fetch(url);
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/** The colour of the thumbnail's pixel at (x, y), decoded. */
async function pixel(image: Buffer, x: number, y: number): Promise<RGB> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at]!, data[at + 1]!, data[at + 2]!];
}

/** Whether two colours are alike (lossy WebP shifts each channel a little). */
const near = (actual: RGB, expected: RGB) => actual.every((channel, i) => Math.abs(channel - expected[i]!) < 60);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('thumbnails of image file values (issue 16)', () => {
  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let albumType: string;

  beforeAll(async () => {
    api = testApi();
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    t = await testTenant(api);
    albumType = await t.defineType('album', [
      { name: 'title', type: 'string' },
      { name: 'photo', type: 'file' },
      { name: 'scan', type: 'file', list: true },
    ]);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await api?.close();
  });

  /** `null` as `auth`: no Authorization header, an anonymous caller. */
  const get = (path: string, auth: string | null = t.owner.auth, app = api.app) => {
    const req = request(app).get(path);
    return auth === null ? req : req.set('Authorization', auth);
  };
  const valueThumb = (valueId: string, size: number | string, auth: string | null = t.owner.auth, app = api.app) =>
    get(`/api/${t.db}/property/${valueId}/thumbnail/${size}`, auth, app);
  const entityThumb = (entityId: string, size: number | string, auth: string | null = t.owner.auth) => get(`/api/${t.db}/entity/${entityId}/thumbnail/${size}`, auth);
  const keyOf = (entityId: string, valueId: string) => `${t.db}/${entityId}/${valueId}`;
  const thumbKeyOf = (entityId: string, valueId: string, size: number) => `${keyOf(entityId, valueId)}.thumbnail-${size}.webp`;

  async function newAlbum(values: object[] = [], by: Person = t.owner): Promise<string> {
    const res = await t.create([{ type: '_type', reference: albumType }, ...values], by);
    expect(res.status).toBe(201);
    return res.body._id as string;
  }

  /** Adds a file value to `entityId` and uploads `bytes` to it, as a client does. */
  async function uploaded(entityId: string, property: string, bytes: Buffer, filename: string, filetype: string): Promise<string> {
    const res = await request(api.app)
      .post(`/api/${t.db}/entity/${entityId}`)
      .set('Authorization', t.owner.auth)
      .send([{ type: property, filename, filesize: bytes.length, filetype }]);
    expect(res.status).toBe(200);
    const value = writtenOf(res.body, property).at(-1) as FileValue;
    const put = await fetch(value.upload.url, { method: value.upload.method, headers: value.upload.headers, body: bytes });
    expect(put.status).toBe(200);
    return value._id;
  }

  /** A new album whose photo is `bytes`; returns the entity's and the photo's ids. */
  async function albumWithPhoto(bytes: Buffer, filename: string, filetype: string, values: object[] = []): Promise<{ entityId: string; photoId: string }> {
    const entityId = await newAlbum(values);
    return { entityId, photoId: await uploaded(entityId, 'photo', bytes, filename, filetype) };
  }

  /** Asks for the thumbnail, checks the answer, downloads and decodes it: a WebP of exactly size×size. */
  async function thumbnail(valueId: string, size: number, auth: string | null = t.owner.auth): Promise<Buffer> {
    const res = await valueThumb(valueId, size, auth);
    expect([res.status, res.body.detail]).toEqual([200, undefined]);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      _id: valueId,
      type: 'photo',
      filename: expect.stringMatching(new RegExp(`-${size}\\.webp$`)),
      filesize: expect.any(Number),
      filetype: 'image/webp',
      size,
      url: expect.any(String),
    });
    expect(new URL(res.body.url).searchParams.get('X-Amz-Expires')).toBe('60');
    const file = await download(res.body.url);
    expect(file.status).toBe(200);
    expect(file.bytes.length).toBe(res.body.filesize);
    const meta = await sharp(file.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', size, size]);
    return file.bytes;
  }

  /** Expects a problem answer of `status`, never a 500. */
  function refused(res: request.Response, status: number): void {
    expect([res.status, res.body.status]).toEqual([status, status]);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.url).toBeUndefined();
  }

  describe('made from real images, each size exactly square', () => {
    it('a landscape JPEG: every size, centre-cropped (the middle stripe fills it)', async () => {
      const jpeg = await (await stripes(900, 300, [RED, GREEN, BLUE], 'across')).jpeg().toBuffer();
      const { photoId } = await albumWithPhoto(jpeg, 'landscape.jpg', 'image/jpeg');
      for (const size of THUMBNAIL_SIZES) {
        const thumb = await thumbnail(photoId, size);
        // A few pixels in from the edges: the source's JPEG blurs its stripes' borders.
        const near0 = Math.max(2, size >> 4);
        const near1 = size - 1 - near0;
        for (const [x, y] of [[near0, near0], [near1, near0], [near0, near1], [near1, near1], [size >> 1, size >> 1]] as const) {
          expect([size, x, y, near(await pixel(thumb, x, y), GREEN)]).toEqual([size, x, y, true]);
        }
      }
    });

    it('a portrait PNG: centre-cropped on its height', async () => {
      const png = await (await stripes(200, 600, [RED, GREEN, BLUE], 'down')).png().toBuffer();
      const { photoId } = await albumWithPhoto(png, 'portrait.png', 'image/png');
      for (const size of [50, 200, 400]) {
        const thumb = await thumbnail(photoId, size);
        expect(near(await pixel(thumb, 1, 1), GREEN)).toBe(true);
        expect(near(await pixel(thumb, size - 2, size - 2), GREEN)).toBe(true);
      }
    });

    it('a WebP, a GIF and an AVIF', async () => {
      const sources: [Buffer, string, string][] = [
        [await (await stripes(500, 400, [GREEN], 'across')).webp().toBuffer(), 'square.webp', 'image/webp'],
        [await (await stripes(320, 240, [GREEN], 'across')).gif().toBuffer(), 'anim.gif', 'image/gif'],
        [await (await stripes(300, 300, [GREEN], 'across')).avif({ effort: 0 }).toBuffer(), 'photo.avif', 'image/avif'],
      ];
      for (const [bytes, name, type] of sources) {
        const { photoId } = await albumWithPhoto(bytes, name, type);
        for (const size of [50, 200, 400]) expect(near(await pixel(await thumbnail(photoId, size), size >> 1, size >> 1), GREEN)).toBe(true);
      }
    });

    it('a source smaller than the size is scaled up to exactly the size', async () => {
      const small = await (await stripes(30, 20, [RED, GREEN, BLUE], 'across')).png().toBuffer();
      const { photoId } = await albumWithPhoto(small, 'tiny.png', 'image/png');
      for (const size of [50, 200, 400, 800]) await thumbnail(photoId, size);
    });

    it('an EXIF-rotated JPEG is turned upright first (orientation 6: its left side is the top)', async () => {
      // Stored 400×300, left half red and right half blue; shown upright it is 300×400, red above blue.
      const rotated = await (await stripes(400, 300, [RED, BLUE], 'across')).jpeg().withMetadata({ orientation: 6 }).toBuffer();
      const { photoId } = await albumWithPhoto(rotated, 'phone.jpg', 'image/jpeg');
      const thumb = await thumbnail(photoId, 200);
      expect(near(await pixel(thumb, 2, 2), RED)).toBe(true);
      expect(near(await pixel(thumb, 2, 197), BLUE)).toBe(true);
      expect(near(await pixel(thumb, 197, 2), RED)).toBe(true);
    });

    it('a file declared as one image type but holding another is made from what its bytes are', async () => {
      const png = await (await stripes(100, 100, [GREEN], 'across')).png().toBuffer();
      const { photoId } = await albumWithPhoto(png, 'mislabelled.jpg', 'image/jpeg');
      await thumbnail(photoId, 50);
    });
  });

  describe('answered like a file value', () => {
    it('download=true answers 302 to the thumbnail itself, a WebP', async () => {
      const jpeg = await (await stripes(300, 200, [GREEN], 'across')).jpeg().toBuffer();
      const { entityId, photoId } = await albumWithPhoto(jpeg, 'cat.jpg', 'image/jpeg');
      for (const path of [`/api/${t.db}/property/${photoId}/thumbnail/200?download=true`, `/api/${t.db}/entity/${entityId}/thumbnail/200?download=true`]) {
        const res = await get(path);
        expect(res.status).toBe(302);
        expect(res.headers['cache-control']).toBe('no-store');
        const file = await download(res.headers.location!);
        expect(file.status).toBe(200);
        expect(file.headers.get('content-type')).toBe('image/webp');
        expect(file.headers.get('content-disposition')).toContain('cat-200.webp');
        const meta = await sharp(file.bytes).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['webp', 200, 200]);
      }
    });

    it("the entity's thumbnail is that of its first photo", async () => {
      const jpeg = await (await stripes(300, 200, [GREEN], 'across')).jpeg().toBuffer();
      const { entityId, photoId } = await albumWithPhoto(jpeg, 'first.jpg', 'image/jpeg');
      const res = await entityThumb(entityId, 400);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ _id: photoId, type: 'photo', filename: 'first-400.webp', filetype: 'image/webp', size: 400 });
      const meta = await sharp((await download(res.body.url)).bytes).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', 400, 400]);
    });

    it('is made once: a second request serves the stored thumbnail (its Last-Modified and ETag unchanged a second later)', async () => {
      const jpeg = await (await noise(800, 600)).jpeg().toBuffer();
      const { entityId, photoId } = await albumWithPhoto(jpeg, 'once.jpg', 'image/jpeg');
      expect(await api.deps.objects.stat(thumbKeyOf(entityId, photoId, 200))).toBeUndefined();
      const first = await valueThumb(photoId, 200);
      expect(first.status).toBe(200);
      const made = (await download(first.body.url)).headers;
      const stored = await api.deps.objects.stat(thumbKeyOf(entityId, photoId, 200));
      expect(stored).toBeDefined();
      // Last-Modified has a resolution of a second: a thumbnail made again would show a later one.
      await sleep(1500);
      const again = await valueThumb(photoId, 200);
      expect(again.status).toBe(200);
      expect(again.body.filesize).toBe(first.body.filesize);
      const served = (await download(again.body.url)).headers;
      expect(served.get('last-modified')).toBe(made.get('last-modified'));
      expect(served.get('etag')).toBe(made.get('etag'));
      expect(await api.deps.objects.stat(thumbKeyOf(entityId, photoId, 200))).toEqual(stored);
      // Only the sizes asked for exist.
      expect(await api.deps.objects.stat(thumbKeyOf(entityId, photoId, 400))).toBeUndefined();
    });
  });

  describe('the client', () => {
    it('thumbnail and entityThumbnail give a URL of the square WebP; a refusal is an EntiaError with its status', async () => {
      const db = new EntiaClient({ baseUrl: t.baseUrl, apiKey: t.owner.apiKey, db: t.db }).db();
      const jpeg = await (await stripes(300, 200, [GREEN], 'across')).jpeg().toBuffer();
      const { entityId, photoId } = await albumWithPhoto(jpeg, 'client.jpg', 'image/jpeg');
      for (const thumb of [await db.thumbnail(photoId, 100), await db.entityThumbnail(entityId, 100)]) {
        expect(thumb).toMatchObject({ _id: photoId, filetype: 'image/webp', size: 100 });
        const meta = await sharp((await download(thumb.url)).bytes).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(['webp', 100, 100]);
      }
      await expect(db.thumbnail(photoId, 123)).rejects.toMatchObject({ status: 404 });
      await expect(db.thumbnail(photoId, 123)).rejects.toBeInstanceOf(EntiaError);
    });
  });

  describe('what is not there, or not readable, is 404', () => {
    let photoId: string;
    let entityId: string;

    beforeAll(async () => {
      const jpeg = await (await stripes(120, 90, [GREEN], 'across')).jpeg().toBuffer();
      ({ entityId, photoId } = await albumWithPhoto(jpeg, 'private.jpg', 'image/jpeg'));
    });

    it('a size outside the set is 404', async () => {
      for (const size of ['123', '0', '201', '0200', '200.0', '-50', 'large', '99999999999999999999']) {
        refused(await valueThumb(photoId, size), 404);
        refused(await entityThumb(entityId, size), 404);
      }
    });

    it('malformed and unknown ids are 404', async () => {
      for (const id of ['not-an-id', '0'.repeat(24), 'ABCDEF0123456789abcdef01', `${photoId}0`]) {
        refused(await valueThumb(id, 200), 404);
        refused(await entityThumb(id, 200), 404);
      }
      // A value id is no entity id, and the other way round.
      refused(await entityThumb(photoId, 200), 404);
      refused(await valueThumb(entityId, 200), 404);
    });

    it('a photo never uploaded is 404, by value and by entity; so is an entity without a photo', async () => {
      const id = await newAlbum([{ type: 'photo', filename: 'later.jpg', filesize: 1000, filetype: 'image/jpeg' }]);
      const entity = (await get(`/api/${t.db}/entity/${id}`)).body.entity;
      refused(await valueThumb(entity.photo[0]._id, 200), 404);
      refused(await entityThumb(id, 200), 404);
      refused(await entityThumb(await newAlbum([{ type: 'title', string: 'No photo' }]), 200), 404);
    });

    it('a value that is not a file is 404', async () => {
      const id = await newAlbum([{ type: 'title', string: 'Words' }]);
      const title = (await get(`/api/${t.db}/entity/${id}`)).body.entity.title[0];
      refused(await valueThumb(title._id, 200), 404);
    });

    it("another tenant's value, and an entity the caller may not read, are 404", async () => {
      const other = await testTenant(api);
      try {
        refused(await get(`/api/${other.db}/property/${photoId}/thumbnail/200`, other.owner.auth), 404);
        refused(await get(`/api/${other.db}/entity/${entityId}/thumbnail/200`, other.owner.auth), 404);
      } finally {
        await other.close();
      }
      const stranger = await t.newPerson('Stranger');
      refused(await valueThumb(photoId, 200, stranger.auth), 404);
      refused(await entityThumb(entityId, 200, stranger.auth), 404);
      refused(await get(`/api/${t.db}/property/${photoId}/thumbnail/200`, null), 404);
      // Nothing was made for them.
      expect(await api.deps.objects.stat(thumbKeyOf(entityId, photoId, 200))).toBeUndefined();
    });

    it('an anonymous caller gets the thumbnail of a public entity', async () => {
      const jpeg = await (await stripes(120, 90, [GREEN], 'across')).jpeg().toBuffer();
      const open = await albumWithPhoto(jpeg, 'open.jpg', 'image/jpeg', [{ type: '_sharing', string: 'public' }]);
      const res = await get(`/api/${t.db}/entity/${open.entityId}/thumbnail/50`, null);
      expect(res.status).toBe(200);
      expect((await sharp((await download(res.body.url)).bytes).metadata()).width).toBe(50);
      await thumbnail(open.photoId, 200, null);
    });
  });

  describe('hostile and non-image files are refused with 422, never a 500', () => {
    it('a text file (text/plain) and a PDF', async () => {
      const entityId = await newAlbum();
      const text = await uploaded(entityId, 'scan', Buffer.from('just words, no pixels\n'), 'notes.txt', 'text/plain');
      const pdf = await uploaded(entityId, 'scan', Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\n%%EOF\n'), 'doc.pdf', 'application/pdf');
      for (const id of [text, pdf]) {
        const res = await valueThumb(id, 200);
        refused(res, 422);
        expect(res.body.detail).toMatch(/image/);
      }
    });

    it('a wrong MIME type either way: text declared as a PNG, a PNG declared as text/plain', async () => {
      const entityId = await newAlbum();
      const fake = await uploaded(entityId, 'scan', Buffer.from('<html><script>alert(1)</script></html>'), 'fake.png', 'image/png');
      const png = await (await stripes(64, 64, [GREEN], 'across')).png().toBuffer();
      const hidden = await uploaded(entityId, 'scan', png, 'image.txt', 'text/plain');
      refused(await valueThumb(fake, 200), 422);
      refused(await valueThumb(hidden, 200), 422);
    });

    it('an SVG, declared as such or as a PNG (never rendered: scripts, external references)', async () => {
      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><image href="http://169.254.169.254/x.png" width="100" height="100"/></svg>');
      const entityId = await newAlbum();
      for (const type of ['image/svg+xml', 'image/png']) {
        const res = await valueThumb(await uploaded(entityId, 'scan', svg, 'drawing.svg', type), 200);
        refused(res, 422);
      }
    });

    it('a decompression bomb: a small PNG declaring 30000×30000', async () => {
      const bomb = pngDeclaring(30_000, 30_000);
      expect(bomb.length).toBeLessThan(100);
      const { photoId } = await albumWithPhoto(bomb, 'bomb.png', 'image/png');
      const res = await valueThumb(photoId, 200);
      refused(res, 422);
      expect(res.body.detail).toMatch(/30000×30000/);
    });

    it('huge dimensions: a JPEG whose header declares 60000×60000, and a 1×25000 line', async () => {
      const { photoId } = await albumWithPhoto(await jpegDeclaring(60_000, 60_000), 'huge.jpg', 'image/jpeg');
      refused(await valueThumb(photoId, 200), 422);
      const line = await albumWithPhoto(pngDeclaring(25_000, 1), 'line.png', 'image/png');
      refused(await valueThumb(line.photoId, 200), 422);
    });

    it('a truncated JPEG', async () => {
      const whole = await (await noise(400, 300)).jpeg().toBuffer();
      const { photoId } = await albumWithPhoto(whole.subarray(0, whole.length >> 1), 'cut.jpg', 'image/jpeg');
      refused(await valueThumb(photoId, 200), 422);
    });

    it('an empty object (0 bytes in storage)', async () => {
      const entityId = await newAlbum([{ type: 'photo', filename: 'empty.png', filesize: 1, filetype: 'image/png' }]);
      const photoId = (await get(`/api/${t.db}/entity/${entityId}`)).body.entity.photo[0]._id as string;
      await api.deps.objects.write(keyOf(entityId, photoId), Buffer.alloc(0), 'image/png');
      refused(await valueThumb(photoId, 200), 422);
      refused(await entityThumb(entityId, 200), 422);
    });

    it('a refusal stores nothing, and asking again is refused again', async () => {
      const { entityId, photoId } = await albumWithPhoto(pngDeclaring(30_000, 30_000), 'bomb2.png', 'image/png');
      refused(await valueThumb(photoId, 50), 422);
      refused(await valueThumb(photoId, 50), 422);
      expect(await api.deps.objects.stat(thumbKeyOf(entityId, photoId, 50))).toBeUndefined();
    });
  });

  describe('bounded work', () => {
    let small: TestApi;
    let tight: TestApi;
    beforeAll(() => {
      // One renderer and no waiting line; and apart, a small limit on the sources read.
      small = testApi({ THUMBNAIL_CONCURRENCY: '1', THUMBNAIL_QUEUE: '0' });
      tight = testApi({ THUMBNAIL_MAX_SOURCE_BYTES: '100000' });
    });
    afterAll(async () => {
      await small?.close();
      await tight?.close();
    });

    it('a source larger than THUMBNAIL_MAX_SOURCE_BYTES is 422, unread', async () => {
      const big = await (await noise(600, 600)).png().toBuffer();
      expect(big.length).toBeGreaterThan(100_000);
      const { photoId } = await albumWithPhoto(big, 'big.png', 'image/png');
      const res = await valueThumb(photoId, 200, t.owner.auth, tight.app);
      refused(res, 422);
      expect(res.body.detail).toMatch(/larger than 100000 bytes/);
    });

    it('requests for one thumbnail at once share one rendering (all 200 with a single renderer and no queue)', async () => {
      const jpeg = await (await noise(1200, 900)).jpeg().toBuffer();
      const { photoId } = await albumWithPhoto(jpeg, 'shared.jpg', 'image/jpeg');
      const answers = await Promise.all(Array.from({ length: 5 }, () => valueThumb(photoId, 400, t.owner.auth, small.app)));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(answers.map((res) => res.body.filesize)).size).toBe(1);
    });

    it('more renderings than renderers and queue: 503 with Retry-After, then served on a retry', async () => {
      const jpeg = await (await noise(1800, 1800)).jpeg().toBuffer();
      const { photoId } = await albumWithPhoto(jpeg, 'busy.jpg', 'image/jpeg');
      const answers = await Promise.all(THUMBNAIL_SIZES.map((size) => valueThumb(photoId, size, t.owner.auth, small.app)));
      const statuses = answers.map((res) => res.status);
      expect(statuses.every((status) => status === 200 || status === 503)).toBe(true);
      const busy = answers.filter((res) => res.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      for (const res of busy) {
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      for (const size of THUMBNAIL_SIZES) expect((await valueThumb(photoId, size, t.owner.auth, small.app)).status).toBe(200);
    });
  });

  describe('removal: thumbnails go with their value (worker)', () => {
    const exists = async (key: string) => (await api.deps.objects.stat(key)) !== undefined;

    it('deleting a file value removes its object and every thumbnail made of it', async () => {
      const jpeg = await (await stripes(300, 200, [GREEN], 'across')).jpeg().toBuffer();
      const { entityId, photoId } = await albumWithPhoto(jpeg, 'doomed.jpg', 'image/jpeg');
      await thumbnail(photoId, 50);
      await thumbnail(photoId, 200);
      const keys = [keyOf(entityId, photoId), thumbKeyOf(entityId, photoId, 50), thumbKeyOf(entityId, photoId, 200)];
      for (const key of keys) expect(await exists(key)).toBe(true);
      const res = await request(api.app).delete(`/api/${t.db}/property/${photoId}`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      refused(await valueThumb(photoId, 50), 404);
      await eventually(() => Promise.all(keys.map(exists)), (present) => present.every((here) => !here));
    });

    it('deleting the entity removes its photos and their thumbnails', async () => {
      const jpeg = await (await stripes(300, 200, [GREEN], 'across')).jpeg().toBuffer();
      const { entityId, photoId } = await albumWithPhoto(jpeg, 'gone.jpg', 'image/jpeg');
      await thumbnail(photoId, 400);
      const keys = [keyOf(entityId, photoId), thumbKeyOf(entityId, photoId, 400)];
      const res = await request(api.app).delete(`/api/${t.db}/entity/${entityId}`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      refused(await entityThumb(entityId, 400), 404);
      await eventually(() => Promise.all(keys.map(exists)), (present) => present.every((here) => !here));
    });
  });
});
