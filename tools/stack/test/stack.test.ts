import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { MongoClient } from 'mongodb';
import { mongoPing, redisPing, startFerretDb, startMinio, startRedis, type ManagedServer } from '@entia/stack';

// Real servers, each on its own temp dir and free port; the binaries come from the cache
// (a fresh machine builds them on first use, which takes minutes, hence the long timeout).
jest.setTimeout(300_000);

let dir: string;
let server: ManagedServer | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-stack-test-'));
});

afterEach(async () => {
  await server?.stop();
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function crashAndRestart(s: ManagedServer, answers: () => Promise<boolean>): Promise<void> {
  const { port, pid } = s;
  expect(pid).toBeGreaterThan(0);
  await s.kill();
  expect(s.pid).toBeUndefined();
  expect(await answers()).toBe(false);
  await s.restart();
  expect(s.port).toBe(port);
  expect(s.pid).not.toBe(pid);
  expect(await answers()).toBe(true);
}

test('redis answers PING and comes back after a crash', async () => {
  const redis = await startRedis({ dir, log: () => undefined });
  server = redis;
  expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
  expect(await redisPing(redis.port)).toBe(true);
  await crashAndRestart(redis, () => redisPing(redis.port));
});

test('a paused redis accepts connections but answers nothing until it is resumed, and still stops', async () => {
  const redis = await startRedis({ dir, log: () => undefined });
  server = redis;
  redis.pause();
  expect(await redisPing(redis.port, '127.0.0.1', 500)).toBe(false);
  expect(redis.pid).toBeGreaterThan(0);
  redis.resume();
  expect(await redisPing(redis.port)).toBe(true);
  // stop() of a paused server must not wait for SIGKILL: it is resumed to act on SIGTERM.
  redis.pause();
  const started = Date.now();
  await redis.stop();
  expect(Date.now() - started).toBeLessThan(4000);
  expect(redis.pid).toBeUndefined();
});

test('FerretDB answers a wire-protocol ping and comes back after a crash', async () => {
  const mongo = await startFerretDb({ dir, log: () => undefined });
  server = mongo;
  expect(mongo.url).toBe(`mongodb://127.0.0.1:${mongo.port}/`);
  expect(await mongoPing(mongo.port)).toBe(true);
  await crashAndRestart(mongo, () => mongoPing(mongo.port));
  await mongo.stop();
  expect(mongo.pid).toBeUndefined();
  expect(await mongoPing(mongo.port)).toBe(false);
});

// The machine's PostgreSQL (trust auth on 127.0.0.1:5432, as on every machine of this kind).
const psql = (sql: string, db = 'postgres') =>
  execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', db, '-tAc', sql], { encoding: 'utf8' }).trim();

test('FerretDB keeps its documents in PostgreSQL when ENTIA_FERRETDB_POSTGRESQL_URL names a database', async () => {
  const database = `entia_stack_test_${process.pid}`;
  psql(`CREATE DATABASE ${database}`);
  try {
    const env = { ...process.env, ENTIA_FERRETDB_POSTGRESQL_URL: `postgres://postgres@127.0.0.1:5432/${database}` };
    const mongo = await startFerretDb({ dir, env, log: () => undefined });
    server = mongo;
    expect(mongo.handler).toBe('PostgreSQL');
    const client = await MongoClient.connect(mongo.url);
    try {
      await client.db('probe').collection('things').insertOne({ _id: 'a', name: 'in postgres' } as never);
      expect(await client.db('probe').collection('things').findOne({ _id: 'a' } as never)).toEqual({ _id: 'a', name: 'in postgres' });
    } finally {
      await client.close();
    }
    // One schema per MongoDB database, the documents as jsonb rows; no SQLite files in the stack's dir.
    expect(psql(`SELECT count(*) FROM information_schema.schemata WHERE schema_name = 'probe'`, database)).toBe('1');
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
    await mongo.stop();
  } finally {
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
});

test('MinIO serves the bucket with its generated credentials, before and after a crash', async () => {
  const minio = await startMinio({ dir, bucket: 'entia-test', log: () => undefined });
  server = minio;
  /** HEAD of the bucket with these credentials: the reply's status, 0 when nothing answered (a fresh client each time: none of a killed server's sockets is reused). */
  const headStatus = async (secretKey: string): Promise<number> => {
    const s3 = new S3Client({ endpoint: minio.endpoint, region: 'us-east-1', credentials: { accessKeyId: minio.accessKey, secretAccessKey: secretKey }, forcePathStyle: true, maxAttempts: 1 });
    try {
      return await s3.send(new HeadBucketCommand({ Bucket: 'entia-test' })).then(
        (reply) => reply.$metadata.httpStatusCode ?? 0,
        (err: { $metadata?: { httpStatusCode?: number } }) => err.$metadata?.httpStatusCode ?? 0,
      );
    } finally {
      s3.destroy();
    }
  };
  const bucketOk = async (): Promise<boolean> => (await headStatus(minio.secretKey)) === 200;
  expect(minio.endpoint).toBe(`http://127.0.0.1:${minio.port}`);
  expect(await bucketOk()).toBe(true);
  expect(await headStatus('not-the-secret')).toBe(403);
  await crashAndRestart(minio, bucketOk);
});
