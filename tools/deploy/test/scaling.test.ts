import { EntiaClient, valuesOf } from '@entia/client';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { API_MAIN, WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from '../../../services/api/test/processes';

// Scaling out as a deployment does: two API processes and two worker processes, started from the
// built mains exactly as the images start them, against one stack (the test stack's MongoDB, Redis
// and bucket), sharing JWT_SECRET and a REDIS_PREFIX of their own.
const repo = join(__dirname, '..', '..', '..');
const CREATE_DATABASE = join(repo, 'services/api/dist/cli/create-database.js');
const JOBS = 12;

jest.setTimeout(60_000);

interface Created {
  db: string;
  personId: string;
  apiKey: string;
  types: { entity: string };
}

describe('two API and two worker processes on one stack', () => {
  const env = stackEnv({ REDIS_PREFIX: `scale${randomBytes(4).toString('hex')}`, WORKER_CONCURRENCY: '2' });
  const processes: Spawned[] = [];
  let apis: string[];
  let workers: { health: string }[];
  let created: Created;

  beforeAll(async () => {
    for (const name of ['MONGODB_URL', 'REDIS_URL', 'S3_ENDPOINT', 'JWT_SECRET']) {
      if (!env[name]) throw new Error(`${name} is not set: run through \`npm test\`, or load a stack's environment (set -a; . ./.stack/env; set +a)`);
    }
    const apiPorts = [await freePort(), await freePort()];
    const workerPorts = [await freePort(), await freePort()];
    for (const port of apiPorts) processes.push(spawnService(API_MAIN, { ...env, PORT: String(port) }));
    for (const port of workerPorts) processes.push(spawnService(WORKER_MAIN, { ...env, WORKER_PORT: String(port) }));
    apis = apiPorts.map((port) => `http://127.0.0.1:${port}`);
    workers = workerPorts.map((port) => ({ health: `http://127.0.0.1:${port}` }));
    await Promise.all([...apis, ...workers.map((w) => w.health)].map((base) => waitForStatus(`${base}/readyz`, (s) => s === 200, 30_000)));

    // The first database, made as an operator makes it in a pod: the create-database command.
    const { stdout } = await promisify(execFile)(process.execPath, [CREATE_DATABASE, `scale_${randomBytes(4).toString('hex')}`, '--json'], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    created = JSON.parse(stdout) as Created;
  }, 120_000);

  afterAll(async () => {
    const codes = await Promise.all(processes.map((p) => p.stop()));
    expect(codes).toEqual([0, 0, 0, 0]);
  });

  const client = (i: number, options: { apiKey?: string; token?: string } = { apiKey: created.apiKey }) =>
    new EntiaClient({ baseUrl: apis[i]!, db: created.db, ...options });

  it('reads through one API what was written through the other, and back', async () => {
    const [a, b] = [client(0).db(), client(1).db()];
    const written = await a.createEntity([
      { type: '_type', reference: created.types.entity },
      { type: 'name', string: 'written through A' },
    ]);
    const [name] = valuesOf((await b.getEntity(written._id)).entity, 'name');
    expect(name).toMatchObject({ string: 'written through A' });

    await b.addValues(written._id, [{ _id: name!._id, type: 'name', string: 'changed through B' }]);
    expect(valuesOf((await a.getEntity(written._id)).entity, 'name')).toEqual([expect.objectContaining({ _id: name!._id, string: 'changed through B' })]);
    const listed = await a.listEntities({ '_type.reference': created.types.entity, 'name.string': 'changed through B' });
    expect(listed.entities.map((e) => e._id)).toEqual([written._id]);
  });

  it('accepts on one API the token the other issued (one JWT_SECRET)', async () => {
    const { token } = await client(0).auth();
    const entity = await client(1, { token }).db().createEntity([
      { type: '_type', reference: created.types.entity },
      { type: 'name', string: 'token from A, written through B' },
    ]);
    expect(valuesOf((await client(0).db().getEntity(entity._id)).entity, 'name')[0]).toMatchObject({ string: 'token from A, written through B' });
  });

  it('processes every job scheduled through either API exactly once, on both workers', async () => {
    // Whole-database rebuilds (owners only), each read back through the API that did not schedule it.
    const dbs = [client(0).db(), client(1).db()];
    const scheduled: { id: string; via: number }[] = [];
    for (let i = 0; i < JOBS; i++) {
      const { id } = await dbs[i % 2]!.aggregateDatabase();
      scheduled.push({ id, via: i % 2 });
    }
    expect(new Set(scheduled.map((s) => s.id)).size).toBe(JOBS);
    const done = await Promise.all(scheduled.map(({ id, via }) => dbs[1 - via]!.waitForAggregation(id, 90_000, 250)));
    expect(done.map((job) => job.state)).toEqual(scheduled.map(() => 'completed'));

    // Each worker's own count of completed rebuilds: together exactly one run per job, both took
    // a share, and none failed (a job run twice would count twice, or fail its second finish).
    const metrics = await Promise.all(workers.map(async (w) => (await fetch(`${w.health}/metrics`)).text()));
    const counts = metrics.map((text) => Number(/entia_job_duration_seconds_count\{name="rebuild",outcome="completed"\} (\d+)/.exec(text)?.[1] ?? 0));
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(JOBS);
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(metrics).not.toContainEqual(expect.stringMatching(/entia_job_duration_seconds_count\{name="rebuild",outcome="failed"\} [1-9]/));
  }, 120_000);
});
