import request from 'supertest';
import { eventually } from '../../api/test/eventually';
import { startKillableWorker, type Spawned } from '../../api/test/processes';
import { sharedWith, testApi, type TestApi } from '../../api/test/support';
import { testTenant, type TestTenant } from '../../api/test/tenant';

// Jobs live in Redis, not in a worker: killing the worker mid-cascade loses nothing.
describe('a worker killed mid-cascade', () => {
  let api: TestApi;
  let t: TestTenant;
  let worker: Spawned | undefined;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
  });
  afterAll(async () => {
    await worker?.stop();
    await t.close();
    await api.close();
  });

  // Same queue as the in-process API; a short lock so the killed worker's job is taken up soon.
  const startWorkerProcess = () => startKillableWorker(sharedWith(api));

  it('ends in the correct values after a restart', async () => {
    const invoice = await t.defineType('invoice', [
      { name: 'total', type: 'number', formula: '_child.row.amount SUM' },
      { name: 'rows', type: 'number', formula: '_child.row._id COUNT' },
    ]);
    const row = await t.defineType('row', [{ name: 'amount', type: 'number' }]);
    const created = async (values: object[]) => {
      const res = await t.create(values);
      expect(res.status).toBe(201);
      return res.body._id as string;
    };
    worker = await startWorkerProcess();
    const id = await created([{ type: '_type', reference: invoice }]);
    const total = async () => (await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).body.entity;
    // Rows arrive faster than one worker (concurrency 1) settles them; it is killed right after
    // the last one, with the parent's recomputation still queued.
    for (let batch = 0; batch < 4; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) => created([{ type: '_type', reference: row }, { type: '_parent', reference: id }, { type: 'amount', number: batch * 10 + i + 1 }])),
      );
    }
    worker.child.kill('SIGKILL');
    expect(await worker.exited).toBe('SIGKILL');
    const pending = await api.deps.jobs.counts();
    expect(pending.waiting! + pending.active! + pending.delayed!).toBeGreaterThan(0);
    const expected = (40 * 41) / 2;
    // Not settled yet: what is left depends on the queued jobs surviving the worker.
    expect((await total()).total?.[0]?.number).not.toBe(expected);

    worker = await startWorkerProcess();
    const entity = await eventually(total, (e) => e.total?.[0]?.number === expected && e.rows?.[0]?.number === 40, 60_000);
    expect(entity.total[0].number).toBe(expected);
  }, 120_000);
});
