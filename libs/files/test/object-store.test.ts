import { randomBytes } from 'node:crypto';
import { ObjectStore, dispositionOf } from '@entia/files';

// Runs against the MinIO of the test stack.
function objectStore(bucket: string): ObjectStore {
  const env = process.env;
  return ObjectStore.fromSettings({
    S3_ENDPOINT: env.S3_ENDPOINT!,
    S3_ACCESS_KEY: env.S3_ACCESS_KEY!,
    S3_SECRET_KEY: env.S3_SECRET_KEY!,
    S3_REGION: env.S3_REGION ?? 'us-east-1',
    S3_BUCKET: bucket,
    DEPENDENCY_TIMEOUT_MS: 1000,
  });
}

describe('ObjectStore against real MinIO', () => {
  const objects = objectStore(`t-files-${process.pid}`);
  const file = (bytes: Buffer, filetype = 'application/octet-stream') => ({ filename: 'a.bin', filesize: bytes.length, filetype });
  const put = (url: string, headers: Record<string, string>, body: Buffer) => fetch(url, { method: 'PUT', headers, body });

  beforeAll(() => objects.ensureBucket());

  it('creates its bucket idempotently and then answers ping', async () => {
    await objects.ensureBucket();
    await expect(objects.ping()).resolves.toBeUndefined();
  });

  it('creates a bucket for browser origins on MinIO, which keeps no per-bucket CORS, and leaves an existing one alone', async () => {
    const fresh = objectStore(`t-cors-${process.pid}`);
    await expect(fresh.ensureBucket(['https://app.example.com'])).resolves.toEqual({ created: true, cors: 'unsupported' });
    await expect(fresh.ping()).resolves.toBeUndefined();
    await expect(fresh.ensureBucket(['https://app.example.com'])).resolves.toEqual({ created: false, cors: 'untouched' });
  });

  it('lets a browser page of another origin PUT to an upload URL (the stack\'s MinIO allows every origin)', async () => {
    const bytes = randomBytes(64);
    const upload = await objects.presignUpload(`probe/cors-${Date.now()}`, file(bytes, 'text/plain'), 60);
    const preflight = await fetch(upload.url, {
      method: 'OPTIONS',
      headers: { Origin: 'http://page.test:8080', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'acl,content-disposition,content-type' },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://page.test:8080');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PUT');
  });

  it('refuses ping when the bucket is missing', async () => {
    await expect(objectStore(`t-missing-${process.pid}`).ping()).rejects.toThrow(/does not exist/);
  });

  it('round-trips bytes: signed PUT with exactly the returned headers, signed GET', async () => {
    const bytes = randomBytes(256 * 1024);
    const key = `probe/${Date.now()}`;
    const upload = await objects.presignUpload(key, file(bytes), 60);
    expect(upload.method).toBe('PUT');
    expect((await put(upload.url, upload.headers, bytes)).status).toBe(200);
    expect(await objects.exists(key)).toBe(true);
    const get = await fetch(await objects.presignDownload(key, 'a.bin', 60));
    expect(get.status).toBe(200);
    expect(Buffer.from(await get.arrayBuffer()).equals(bytes)).toBe(true);
    await objects.remove(key);
    expect(await objects.exists(key)).toBe(false);
    await objects.remove(key); // removing again succeeds: deletion jobs may retry
  });

  it('refuses a PUT with another length or another type than signed', async () => {
    const bytes = randomBytes(100);
    const upload = await objects.presignUpload(`probe/strict-${Date.now()}`, file(bytes, 'image/png'), 60);
    expect((await put(upload.url, { ...upload.headers, 'Content-Length': '101' }, randomBytes(101))).status).toBe(403);
    expect((await put(upload.url, { ...upload.headers, 'Content-Type': 'text/plain' }, bytes)).status).toBe(403);
  });

  it('refuses an expired upload URL', async () => {
    const bytes = randomBytes(10);
    const upload = await objects.presignUpload(`probe/expired-${Date.now()}`, file(bytes), 1);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const res = await put(upload.url, upload.headers, bytes);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Request has expired');
  });

  it('refuses a URL whose signature was tampered with', async () => {
    const url = new URL(await objects.presignDownload('probe/any', 'x', 60));
    url.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await fetch(url)).status).toBe(403);
  });

  it.each([
    ['plain', 'report.pdf', 'attachment; filename=report.pdf'],
    ['quotes', 'say "hi".txt', 'attachment; filename="say \\"hi\\".txt"'],
    ['CR LF', 'a\r\nSet-Cookie: x.txt', `attachment; filename="a??Set-Cookie: x.txt"; filename*=UTF-8''a%0D%0ASet-Cookie%3A%20x.txt`],
    ['non-ASCII', 'Õun.jpg', `attachment; filename="?un.jpg"; filename*=UTF-8''%C3%95un.jpg`],
  ])('Content-Disposition is safe for %s names', (_case, name, expected) => {
    expect(dispositionOf(name)).toBe(expected);
    expect(dispositionOf(name)).not.toMatch(/[\r\n]/);
  });
});
