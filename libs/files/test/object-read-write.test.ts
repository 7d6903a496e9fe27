import { randomBytes } from 'node:crypto';
import { ObjectStore, ObjectTooLargeError } from '@entia/files';

// The reading and writing thumbnails need (issue 16), against the MinIO of the test stack.
describe('ObjectStore: stat, bounded read, write', () => {
  const env = process.env;
  const objects = ObjectStore.fromSettings({
    S3_ENDPOINT: env.S3_ENDPOINT!,
    S3_ACCESS_KEY: env.S3_ACCESS_KEY!,
    S3_SECRET_KEY: env.S3_SECRET_KEY!,
    S3_REGION: env.S3_REGION ?? 'us-east-1',
    S3_BUCKET: `t-rw-${process.pid}`,
    DEPENDENCY_TIMEOUT_MS: 1000,
  });
  const key = (name: string) => `probe/${Date.now()}-${randomBytes(4).toString('hex')}/${name}`;

  beforeAll(() => objects.ensureBucket());

  it('writes an object, tells its size, ETag and time of writing, and reads it back', async () => {
    const bytes = randomBytes(3000);
    const at = key('a.webp');
    expect(await objects.stat(at)).toBeUndefined();
    await objects.write(at, bytes, 'image/webp');
    const stat = await objects.stat(at);
    expect(stat).toEqual({ size: 3000, etag: expect.stringMatching(/^"[0-9a-f]+"$/), lastModified: expect.any(Date) });
    expect((await objects.read(at, 3000))!.equals(bytes)).toBe(true);
  });

  it('reads nothing of a missing object, and refuses one larger than asked for, unread', async () => {
    expect(await objects.read(key('missing'), 10)).toBeUndefined();
    const at = key('big.bin');
    await objects.write(at, randomBytes(5000), 'application/octet-stream');
    await expect(objects.read(at, 4999)).rejects.toBeInstanceOf(ObjectTooLargeError);
  });

  it('keeps an object and a sibling whose key extends it (`a` and `a.thumbnail-50.webp`)', async () => {
    const at = key('value');
    await objects.write(at, Buffer.from('original'), 'text/plain');
    await objects.write(`${at}.thumbnail-50.webp`, Buffer.from('thumb'), 'image/webp');
    expect((await objects.read(at, 100))!.toString()).toBe('original');
    expect((await objects.read(`${at}.thumbnail-50.webp`, 100))!.toString()).toBe('thumb');
  });
});
