import { randomBytes } from 'node:crypto';
import { ObjectStore } from '@entia/files';

// Runs against the MinIO of the test stack.
function objectStore(bucket: string): ObjectStore {
  return new ObjectStore({
    endpoint: process.env.S3_ENDPOINT!,
    accessKey: process.env.S3_ACCESS_KEY!,
    secretKey: process.env.S3_SECRET_KEY!,
    region: process.env.S3_REGION ?? 'us-east-1',
    bucket,
  });
}

describe('ObjectStore against real MinIO', () => {
  const objects = objectStore(`t-files-${process.pid}`);

  beforeAll(() => objects.ensureBucket());

  it('creates its bucket idempotently and then answers ping', async () => {
    await objects.ensureBucket();
    await expect(objects.ping()).resolves.toBeUndefined();
  });

  it('refuses ping when the bucket is missing', async () => {
    await expect(objectStore(`t-missing-${process.pid}`).ping()).rejects.toThrow(/does not exist/);
  });

  it('round-trips bytes through signed PUT and GET URLs', async () => {
    const bytes = randomBytes(256 * 1024);
    const key = `probe/${Date.now()}`;
    const put = await fetch(await objects.presignPut(key, 60), { method: 'PUT', body: bytes });
    expect(put.status).toBe(200);
    const get = await fetch(await objects.presignGet(key, 60));
    expect(get.status).toBe(200);
    expect(Buffer.from(await get.arrayBuffer()).equals(bytes)).toBe(true);
    await objects.remove(key);
    expect((await fetch(await objects.presignGet(key, 60))).status).toBe(404);
  });

  it('refuses a URL whose signature was tampered with', async () => {
    const url = new URL(await objects.presignGet('probe/any', 60));
    url.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await fetch(url)).status).toBe(403);
  });
});
