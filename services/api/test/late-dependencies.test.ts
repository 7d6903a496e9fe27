import { DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { BUCKET_RECHECK_MS } from '@entia/files';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFerretDb, startMinio, startRedis, type ManagedServer } from '@entia/stack';
import { Timings, expectFastUnavailable, timed, until, type Answer } from './faults';
import { API_MAIN, WORKER_MAIN, freePort, spawnService, stackEnv, type Spawned } from './processes';
import { runAdmin } from './admin-cli';
import { eventually } from './eventually';
import { testApi } from './support';
import { testTenant } from './tenant';

const READINESS_TIMEOUT_MS = 1500;
const DEPENDENCY_TIMEOUT_MS = 1000;
// Longer than every time limit a start could trip over: finding a server (DEPENDENCY_TIMEOUT_MS),
// a readiness probe, a query (MONGODB_TIMEOUT_MS, 5 s by default), the connect retries' 2 s pause.
const AWAY_MS = 6000;
// How long the services may take to serve once the dependency is back: a few seconds on an idle
// machine (the figures are printed with ENTIA_FAULT_TIMINGS), bounded generously for a busy one.
const RECOVERY_MS = 30_000;

type How = 'not started yet' | 'paused';
type Dependency = 'mongodb' | 'redis' | 'storage';

// The API and the worker start as real processes while one dependency is away, stay up (alive,
// not ready, saying why), and serve once it is back — without a restart. Each dependency is a
// server of this file's own: the shared test stack's are never touched.
describe('processes started while a dependency is away', () => {
  const dir = mkdtempSync(join(tmpdir(), 'entia-late-'));
  const timings = new Timings();
  const servers = {} as Record<Dependency, ManagedServer>;
  let env: Record<string, string>;
  let db: string;
  let auth: string;
  let invoiceType: string;
  let rowType: string;
  let invoiceId: string;

  beforeAll(async () => {
    const [redis, mongo, minio] = await Promise.all([startRedis({ dir: join(dir, 'redis') }), startFerretDb({ dir: join(dir, 'mongo') }), startMinio({ dir: join(dir, 'minio'), bucket: 'late' })]);
    Object.assign(servers, { redis, mongodb: mongo, storage: minio });
    const storage = { S3_ENDPOINT: minio.endpoint, S3_ACCESS_KEY: minio.accessKey, S3_SECRET_KEY: minio.secretKey, S3_BUCKET: 'late' };
    // The data is made by the API's own code in-process; from then on only the spawned processes talk to these servers.
    const setup = testApi({ MONGODB_URL: mongo.url, REDIS_URL: redis.url, ...storage });
    const t = await testTenant(setup);
    rowType = await t.defineType('row', [
      { name: 'amount', type: 'number' },
      { name: 'scan', type: 'file' },
    ]);
    invoiceType = await t.defineType('invoice', [{ name: 'total', type: 'number', formula: '_child.row.amount SUM' }]);
    invoiceId = (await t.create([{ type: '_type', reference: invoiceType }])).body._id;
    [db, auth] = [t.db, t.owner.auth];
    env = {
      MONGODB_URL: mongo.url,
      REDIS_URL: redis.url,
      ...storage,
      MONGODB_CONTROL_DB: setup.deps.config.MONGODB_CONTROL_DB,
      READINESS_TIMEOUT_MS: String(READINESS_TIMEOUT_MS),
      DEPENDENCY_TIMEOUT_MS: String(DEPENDENCY_TIMEOUT_MS),
    };
    await t.close();
    await setup.close();
  }, 120_000);

  afterAll(async () => {
    timings.print('late dependencies: from the dependency back to both services ready (ms)');
    await Promise.allSettled(Object.values(servers).map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  interface Services {
    api: Spawned;
    worker: Spawned;
    base: string;
    workerBase: string;
  }

  async function startServices(overrides: Record<string, string>): Promise<Services> {
    const [port, workerPort] = [await freePort(), await freePort()];
    // A queue of each scenario's own: a job left by the one before cannot count for this one.
    const shared = { ...env, REDIS_PREFIX: `late${randomBytes(4).toString('hex')}`, ...overrides };
    return {
      api: spawnService(API_MAIN, stackEnv({ ...shared, PORT: String(port) })),
      worker: spawnService(WORKER_MAIN, stackEnv({ ...shared, WORKER_PORT: String(workerPort) })),
      base: `http://127.0.0.1:${port}`,
      workerBase: `http://127.0.0.1:${workerPort}`,
    };
  }

  const headers = () => ({ authorization: auth, 'content-type': 'application/json' });
  const createRow = (base: string, amount: number, extra: object[] = []) =>
    timed(`${base}/api/${db}/entity`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify([{ type: '_type', reference: rowType }, { type: '_parent', reference: invoiceId }, { type: 'amount', number: amount }, ...extra]),
    });
  const total = async (base: string) => (await timed(`${base}/api/${db}/entity/${invoiceId}?props=total`, { headers: headers() })).body as { entity?: { total?: { number: number }[] } };

  /** Both alive (/healthz 200), and what each readiness probe says while `dependency` is away. */
  async function expectWaiting(services: Services, dependency: Dependency): Promise<void> {
    for (const url of [`${services.base}/healthz`, `${services.workerBase}/healthz`]) expect({ url, status: (await timed(url)).status }).toEqual({ url, status: 200 });
    expect(services.api.child.exitCode).toBeNull();
    expect(services.worker.child.exitCode).toBeNull();
    const api = await timed(`${services.base}/readyz`);
    const reason = api.body.reasons as Record<string, string> | undefined;
    if (dependency === 'storage') {
      // Not needed to start: ready, saying that storage is down and why.
      expect({ status: api.status, degraded: api.body.degraded }).toEqual({ status: 200, degraded: ['storage'] });
      // But no upload URL is handed out that cannot work: a file value is a quick 503, and its row is
      // not stored (the invoice's total, checked once storage is back, would count it).
      expectFastUnavailable(await createRow(services.base, 1, [scanOf(randomBytes(8))]));
    } else {
      // A write meanwhile is a quick 503 with Retry-After, never a hang (and stores nothing).
      expectFastUnavailable(await createRow(services.base, 1));
      expect(api.status).toBe(503);
      expect(api.body.detail).toMatch(new RegExp(`^starting: ${dependency} unreachable \\(.+\\)`));
      const worker = await timed(`${services.workerBase}/readyz`);
      expect({ status: worker.status, checks: worker.body.checks }).toMatchObject({ status: 503, checks: { [dependency]: 'down' } });
      expect(worker.body.detail).toMatch(new RegExp(`${dependency} unreachable \\(.+\\)`));
    }
    expect(reason?.[dependency]).toEqual(expect.any(String));
  }

  /** Empties and deletes a bucket of this file's MinIO, as storage that lost it would have none. */
  async function deleteBucket(bucket: string): Promise<void> {
    const s3 = new S3Client({ endpoint: env.S3_ENDPOINT, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: env.S3_ACCESS_KEY!, secretAccessKey: env.S3_SECRET_KEY! } });
    try {
      const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
      for (const { Key } of listed.Contents ?? []) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    } finally {
      s3.destroy();
    }
  }

  const scanOf = (bytes: Buffer) => ({ type: 'scan', filename: 'scan.bin', filesize: bytes.length, filetype: 'application/octet-stream' });

  async function uploadWorks(base: string): Promise<void> {
    const bytes = randomBytes(64);
    const created = await createRow(base, 0, [scanOf(bytes)]);
    expect(created.status).toBe(201);
    const upload = (created.body.properties as { scan: { upload: { url: string; method: string; headers: Record<string, string> } }[] }).scan[0]!.upload;
    const put = await fetch(upload.url, { method: upload.method, headers: upload.headers, body: bytes });
    expect(put.status).toBe(200);
  }

  it('entia-admin migrate started before MongoDB and Redis says once what it waits for, and migrates once they answer', async () => {
    await Promise.all([servers.mongodb.kill(), servers.redis.kill()]);
    try {
      const run = runAdmin(['migrate'], env);
      await new Promise((resolve) => setTimeout(resolve, AWAY_MS));
      await Promise.all([servers.mongodb.restart(), servers.redis.restart()]);
      const { code, stdout, stderr } = await run;
      expect({ code, stdout }).toEqual({ code: 0, stdout: expect.stringMatching(/: current\n$/) });
      // Its own words once (the services' JSON log lines, such as the Redis breaker's, may come beside them).
      const said = stderr.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
      expect(said).toEqual([expect.stringMatching(/^entia-admin: waiting for MongoDB \(connect ECONNREFUSED [^)]+\), Redis \(connect ECONNREFUSED [^)]+\) to answer, up to 60 s \(ADMIN_WAIT_MS\)$/)]);
    } finally {
      for (const server of [servers.mongodb, servers.redis]) if (server.pid === undefined) await server.restart();
    }
  }, 60_000);

  const scenarios: [Dependency, How][] = [
    ['mongodb', 'not started yet'],
    ['mongodb', 'paused'],
    ['redis', 'not started yet'],
    ['redis', 'paused'],
    ['storage', 'not started yet'],
    ['storage', 'paused'],
  ];
  let sum = 0;

  it.each(scenarios)('%s %s: alive and saying why it is not ready, then serving within seconds of it being back, with no restart', async (dependency, how) => {
    const server = servers[dependency];
    if (how === 'paused') server.pause();
    else await server.kill();
    // Storage: a bucket that does not exist yet, which the API must create once storage answers.
    const bucket = `late-${randomBytes(4).toString('hex')}`;
    const services = await startServices(dependency === 'storage' ? { S3_BUCKET: bucket } : {});
    const { api, worker, base, workerBase } = services;
    try {
      await new Promise((resolve) => setTimeout(resolve, AWAY_MS));
      await expectWaiting(services, dependency);

      if (how === 'paused') server.resume();
      else await server.restart();
      const back = Date.now();
      const ready = (answer: Answer) => answer.status === 200 && answer.body.status === 'ready';
      await until(() => timed(`${base}/readyz`), ready, RECOVERY_MS);
      await until(() => timed(`${workerBase}/readyz`), ready, RECOVERY_MS);
      timings.note(`${dependency} ${how}: both ready`, Date.now() - back);

      // Writes are accepted, and the worker runs the job they leave: the invoice sums its rows.
      const amount = 1 + Math.floor(Math.random() * 1000);
      expect((await createRow(base, amount)).status).toBe(201);
      sum += amount;
      await eventually(() => total(base), (body) => body.entity?.total?.[0]?.number === sum, RECOVERY_MS);
      if (dependency === 'storage') {
        await uploadWorks(base);
        // Storage that loses the bucket (wiped, or a new empty volume) gets it again from the next
        // write that hands out an upload URL, once the last check has aged: no restart.
        await deleteBucket(bucket);
        await new Promise((resolve) => setTimeout(resolve, BUCKET_RECHECK_MS));
        await uploadWorks(base);
      }

      // The same processes all along: nothing restarted them.
      expect({ api: api.child.exitCode, worker: worker.child.exitCode }).toEqual({ api: null, worker: null });
    } finally {
      await Promise.all([api.stop(), worker.stop()]);
      // Back for the next scenario, whatever this one's outcome.
      if (server.pid === undefined) await server.restart();
      else server.resume();
    }
  }, 120_000);
});
