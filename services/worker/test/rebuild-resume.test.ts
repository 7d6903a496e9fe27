import { ObjectId } from 'mongodb';
import request from 'supertest';
import { eventually } from '../../api/test/eventually';
import { startKillableWorker, type Spawned } from '../../api/test/processes';
import { sharedWith, testApi, type TestApi } from '../../api/test/support';
import { testTenant, type TestTenant } from '../../api/test/tenant';

// A rebuild keeps its position in its job (BullMQ's step-job pattern): a worker killed mid-rebuild
// leaves the job to the next worker, which continues after the last page the first one saved.
describe('a worker killed mid-rebuild', () => {
  const ROWS = 160;
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

  it('continues where it stopped: every entity rebuilt, none before the saved position again', async () => {
    const row = await t.defineType('row', [
      { name: 'amount', type: 'number' },
      { name: 'double', type: 'number', formula: 'amount 2 MULTIPLY' },
    ]);
    worker = await startWorkerProcess();
    const rows: string[] = [];
    for (let batch = 0; batch < ROWS / 20; batch++) {
      const created = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await t.create([{ type: '_type', reference: row }, { type: 'amount', number: batch * 20 + i }]);
          expect(res.status).toBe(201);
          return res.body._id as string;
        }),
      );
      rows.push(...created);
    }
    const pendingMarks = () => api.deps.store.control.collection('pending').countDocuments({ db: t.db });
    // The creates' own work settled first: from here on only the rebuild changes the rows.
    await eventually(pendingMarks, (count) => count === 0, 120_000);

    // Every row's formula result lost, as if computed by an older version: the rebuild restores each.
    const documents = api.deps.store.database(t.db).collection('entity');
    const lose = (ids: string[]) => documents.updateMany({ _id: { $in: ids.map((id) => new ObjectId(id)) } }, { $unset: { double: '' } });
    await lose(rows);
    const doubleOf = async (id: string) => (await api.deps.store.entities(t.db).get(id))?.entity.properties.double?.[0]?.number;
    expect(await doubleOf(rows[0]!)).toBeUndefined();

    const scheduled = await request(api.app).post(`/api/${t.db}/aggregate`).set('Authorization', t.owner.auth);
    expect(scheduled.status).toBe(202);
    const location = scheduled.headers.location!;
    const statusOf = async () => (await request(api.app).get(location).set('Authorization', t.owner.auth)).body as { state: string; progress: { done: number; total: number }; result?: { entities: number } };

    // Killed once a page is saved.
    const running = await eventually(statusOf, (status) => status.state !== 'active' || status.progress.done >= 100, 400_000);
    worker.child.kill('SIGKILL');
    expect(await worker.exited).toBe('SIGKILL');
    expect(running.state).toBe('active');
    // What the operator sees of the killed run: the position its last page saved.
    const stopped = await statusOf();
    const saved = stopped.progress.done;
    expect(saved).toBeGreaterThanOrEqual(100);
    expect(saved).toBeLessThan(stopped.progress.total);

    // The entities up to the saved position (in id order, as the rebuild walks them) lose their
    // result again: a rebuild that started over would restore it, one that continues does not.
    const ids: string[] = [];
    for await (const page of api.deps.store.entities(t.db).allIds(1000)) ids.push(...page);
    const before = new Set(ids.slice(0, saved));
    const rowsBefore = rows.filter((id) => before.has(id));
    const rowsAfter = rows.filter((id) => !before.has(id));
    expect(rowsBefore.length).toBeGreaterThan(0);
    expect(rowsAfter.length).toBeGreaterThan(0);
    await lose(rowsBefore);

    worker = await startWorkerProcess();
    const seen: { state: string; progress: { done: number; total: number } }[] = [];
    const finished = await eventually(
      async () => {
        const status = await statusOf();
        seen.push(status);
        return status;
      },
      (status) => status.state === 'completed' || status.state === 'failed',
      400_000,
    );
    expect(finished.state).toBe('completed');
    // The whole database counted once, and the progress never went back to the start.
    expect(finished.result).toEqual({ entities: ids.length });
    expect(seen.every((status) => status.progress.done >= saved)).toBe(true);

    const results = async (list: string[]) => Promise.all(list.map(async (id) => [id, await doubleOf(id)] as const));
    const amountOf = new Map(rows.map((id, i) => [id, i * 2]));
    // Every row after the saved position rebuilt…
    expect((await results(rowsAfter)).filter(([id, double]) => double !== amountOf.get(id))).toEqual([]);
    // …and none before it rebuilt again.
    expect((await results(rowsBefore)).filter(([, double]) => double !== undefined)).toEqual([]);
  }, 1_200_000);
});
