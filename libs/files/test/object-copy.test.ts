import { randomBytes } from 'node:crypto';
import { ObjectStore } from '@entia/files';

// ObjectStore.copy against the MinIO of the test stack (what a duplicate's file values rely on).
describe('ObjectStore.copy against real MinIO', () => {
  const settings = () => ({
    S3_ENDPOINT: process.env.S3_ENDPOINT!,
    S3_ACCESS_KEY: process.env.S3_ACCESS_KEY!,
    S3_SECRET_KEY: process.env.S3_SECRET_KEY!,
    S3_REGION: process.env.S3_REGION ?? 'us-east-1',
    S3_BUCKET: `t-copy-${process.pid}`,
    DEPENDENCY_TIMEOUT_MS: 1000,
  });
  const objects = ObjectStore.fromSettings(settings());
  const file = (bytes: Buffer) => ({ filename: 'kaart "ä".png', filesize: bytes.length, filetype: 'image/png' });

  beforeAll(() => objects.ensureBucket());

  it('copies the bytes, type and download name to a new key; the copy outlives its source', async () => {
    const bytes = randomBytes(2048);
    const upload = await objects.presignUpload('db/a/1', file(bytes), 60);
    expect((await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: bytes })).status).toBe(200);

    await expect(objects.copy('db/a/1', 'db/b/2')).resolves.toBe(true);
    await objects.remove('db/a/1');
    const res = await fetch(await objects.presignDownload('db/b/2', 'kaart "ä".png', 60));
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe(upload.headers['Content-Disposition']);
    // Copying again over the same key is harmless (a retry).
    await expect(objects.copy('db/b/2', 'db/b/2-again')).resolves.toBe(true);
  });

  it('answers false for a source never uploaded, and writes nothing', async () => {
    await expect(objects.copy('db/never/1', 'db/c/3')).resolves.toBe(false);
    await expect(objects.exists('db/c/3')).resolves.toBe(false);
  });
});
