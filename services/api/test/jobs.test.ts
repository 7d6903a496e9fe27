import { EntiaClient } from '@entia/client';
import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

describe('a job round trip: API → Redis → worker → Redis → API', () => {
  let api: TestApi;
  let t: TestTenant;
  let worker: RunningWorker | undefined;
  let client: EntiaClient;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    client = new EntiaClient({ baseUrl: t.baseUrl, apiKey: t.owner.apiKey, db: t.db });
  });
  afterAll(async () => {
    await worker?.close();
    await t.close();
    await api.close();
  });

  it('a rebuild scheduled while no worker runs waits, then is processed once a worker starts', async () => {
    const db = client.db();
    const { id } = await db.aggregateDatabase();
    expect((await db.aggregation(id)).state).toBe('waiting');

    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    const done = await db.waitForAggregation(id, 20_000);
    expect(done.state).toBe('completed');
    expect(done.result).toEqual({ entities: await api.deps.store.entities(t.db).count() });
  });

  it('an unknown job id answers 404', async () => {
    await expect(client.db().aggregation(`rebuild-${t.db}-${'0'.repeat(32)}`)).rejects.toMatchObject({ status: 404 });
  });

  it('the worker reports itself ready and exposes job metrics', async () => {
    await expect(worker!.readiness()).resolves.toMatchObject({ ready: true, body: { status: 'ready', checks: { mongodb: 'up', redis: 'up' } } });
    const text = await worker!.registry.metrics();
    expect(text).toMatch(/entia_job_duration_seconds_count\{name="rebuild",outcome="completed"\} 1/);
    expect(text).toMatch(/entia_queue_jobs\{state="waiting"\} 0/);
  });

  it("shows on the first scrape how long the oldest pending entity has waited, counted from its first change", async () => {
    const gauge = async (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(await worker!.registry.metrics())?.[1]);
    const marks = api.deps.store.control.collection('pending');
    // As the sweep leaves a mark it could not settle: made now (so no round takes it yet), pending for two minutes.
    const { insertedId } = await marks.insertOne({ db: t.db, entity: '5f1d7a0c9b1e8a0012345601', depth: 0, at: new Date(), since: new Date(Date.now() - 120_000) });
    expect(await gauge('entia_derived_pending_oldest_seconds')).toBeGreaterThanOrEqual(120);
    expect(await gauge('entia_derived_pending_marks')).toBeGreaterThanOrEqual(1);
    await marks.deleteOne({ _id: insertedId });
    expect(await gauge('entia_derived_pending_oldest_seconds')).toBeLessThan(120);
  });
});

/**
 * The security test found `/api/jobs/*` anonymous: anyone could enqueue pings and read every
 * tenant's jobs by counting ids up (their internal names, the worker's host and pid). The routes
 * are gone; a job's state is shown only by its own scoped route (a rebuild's to the owners of its
 * database, aggregate.test.ts), and job ids are 128 random bits.
 */
describe('jobs are not public (issue 14)', () => {
  let api: TestApi;
  let t: TestTenant;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  it('nobody can schedule a ping or read a job by id at /api/jobs, signed in or not', async () => {
    const before = await api.deps.jobs.counts();
    for (const auth of [undefined, t.owner.auth]) {
      const ping = request(api.app).post('/api/jobs/ping');
      if (auth) ping.set('Authorization', auth);
      expect((await ping.send({ message: 'hi' })).status).toBe(404);
    }
    expect(await api.deps.jobs.counts()).toEqual(before);

    // A job that exists (a rebuild of this database) is not shown there either, under any id.
    const rebuild = await request(api.app).post(`/api/${t.db}/aggregate`).set('Authorization', t.owner.auth);
    expect(rebuild.status).toBe(202);
    for (const id of [rebuild.body.id, '1', '2', '3']) {
      const anonymous = await request(api.app).get(`/api/jobs/${id}`);
      const owner = await request(api.app).get(`/api/jobs/${id}`).set('Authorization', t.owner.auth);
      expect([anonymous.status, owner.status]).toEqual([404, 404]);
      expect(anonymous.text + owner.text).not.toMatch(/rebuild|ping|worker|state/);
    }
  });

  it('job ids are 128 random bits, never a counter', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await request(api.app).post(`/api/${t.db}/aggregate`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(202);
      ids.push(res.body.id);
    }
    for (const id of ids) expect(id).toMatch(new RegExp(`^rebuild-${t.db}-[0-9a-f]{32}$`));
    expect(new Set(ids).size).toBe(3);
    // Jobs the services queue for themselves get random ids too (BullMQ would count 1, 2, 3, …).
    const internal = await Promise.all([1, 2].map(() => api.deps.jobs.enqueue('delete-object', { key: `${t.db}/none/none` }, undefined, { delay: 3_600_000 })));
    for (const id of internal) expect(id).toMatch(/^[0-9a-f]{32}$/);
  });
});
