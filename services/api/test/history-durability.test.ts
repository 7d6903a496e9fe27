import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { DroppingProxy } from '../../../libs/store/test/dropping-proxy';
import { eventually } from './eventually';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// Issue 16 (and 37): a change is in history even when no worker has run and the queued job that
// would follow up is gone: the rows travel in the entity's outbox, committed with the change; a
// reader of the history records them first, and the worker's sweep delivers them. A create that
// leaves no work for the worker records its history before the entity exists, so losing that write
// fails the create.
describe('history survives a failed recording and a wiped Redis', () => {
  jest.setTimeout(120_000);

  let proxy: DroppingProxy;
  let api: TestApi;
  let t: TestTenant;
  let book: string;
  let worker: RunningWorker | undefined;

  beforeAll(async () => {
    proxy = await DroppingProxy.start(process.env.MONGODB_URL!);
    // The API talks to the database through the proxy; no worker runs until the test starts one.
    api = testApi({ MONGODB_URL: proxy.url, SWEEP_INTERVAL_MS: '1000' });
    t = await testTenant(api);
    book = await t.defineType('book', [{ name: 'title', type: 'string' }]);
  });
  afterAll(async () => {
    await worker?.close();
    await t.close();
    await api.close();
    await proxy.close();
  });

  const changesOf = async (id: string) => {
    const res = await request(api.app).get(`/api/${t.db}/entity/${id}/history`).set('Authorization', t.owner.auth);
    expect(res.status).toBe(200);
    return res.body.changes as Array<{ type: string; old?: { string?: string }; new?: { string?: string } }>;
  };

  /** Removes every key of this API's queues, leases and cache tokens, as a Redis restarted empty would have none. */
  async function wipeRedis(): Promise<void> {
    const keys = await api.deps.redis.keys(`${api.deps.config.REDIS_PREFIX}*`);
    if (keys.length > 0) await api.deps.redis.del(...keys);
    expect(await api.deps.redis.keys(`${api.deps.config.REDIS_PREFIX}*`)).toEqual([]);
  }

  const books = async () => (await request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}&limit=0`).set('Authorization', t.owner.auth)).body.count as number;

  it('fails a create whose history could not be recorded, storing nothing', async () => {
    const before = await books();
    // A create records its history before the entity is inserted: losing that write fails the create.
    const lost = proxy.drop('insert', 'request', 'history');
    const created = await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'Lost' }]);
    await lost;
    expect(created.status).toBe(503);
    expect(await books()).toBe(before);
  });

  it("has a create that leaves work for the worker in history at once: its rows ride in the entity's outbox", async () => {
    const invoice = await t.defineType('invoice', [{ name: 'total', type: 'number', formula: '_child.row.amount SUM' }]);
    const row = await t.defineType('row', [{ name: 'amount', type: 'number' }]);
    const parent = (await t.create([{ type: '_type', reference: invoice }])).body._id as string;
    const child = await t.create([{ type: '_type', reference: row }, { type: '_parent', reference: parent }, { type: 'amount', number: 7 }]);
    expect(child.status).toBe(201);
    const id = child.body._id as string;
    // The parent's total reads it: the worker settles it anyway, and records its history then.
    expect((await api.deps.store.entities(t.db).stored(id))!.outbox.map((entry) => entry.kind).sort()).toEqual(['changed', 'history']);
    const changes = await changesOf(id);
    expect(changes.map((c) => c.type).sort()).toEqual(['_created', '_owner', '_parent', '_type', 'amount'].sort());
    expect(changes.find((c) => c.type === 'amount')!.new).toMatchObject({ number: 7 });
  });

  it('has a change in history the moment it is answered, no worker running; the worker records it once, after Redis lost its jobs', async () => {
    const created = await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'Dune' }]);
    expect(created.status).toBe(201);
    const id = created.body._id as string;
    expect((await changesOf(id)).filter((c) => c.type === '_created')).toHaveLength(1);

    // The change's history rows are committed in the entity's outbox; no worker runs yet.
    const renamed = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: 'title', string: 'Dune Messiah' }]);
    expect(renamed.status).toBe(200);
    expect((await api.deps.store.entities(t.db).stored(id))!.outbox.some((entry) => entry.kind === 'history')).toBe(true);
    // A reader records them before reading; when that is lost on the way, the read fails, and nothing else.
    const lost = proxy.drop('insert', 'request', 'history');
    const failed = await request(api.app).get(`/api/${t.db}/entity/${id}/history`).set('Authorization', t.owner.auth);
    await lost;
    expect(failed.status).toBe(503);
    const changes = await changesOf(id);
    const titles = changes.filter((c) => c.type === 'title');
    expect(titles.map((c) => [c.old?.string ?? null, c.new?.string ?? null])).toEqual([
      ['Dune', 'Dune Messiah'],
      [null, 'Dune'],
    ]);
    expect(changes.filter((c) => c.type === '_created')).toHaveLength(1);

    // The settle jobs that would deliver the outbox are gone with Redis' data: the sweep finds the entity.
    await wipeRedis();
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    await eventually(
      () => api.deps.store.entities(t.db).stored(id),
      (stored) => stored!.outbox.length === 0,
    );
    // Recorded by the reader and delivered by the worker: each change once.
    expect(await changesOf(id)).toEqual(changes);
    await request(api.app).post(`/api/${t.db}/entity/${id}/aggregate`).set('Authorization', t.owner.auth).expect(200);
    expect(await changesOf(id)).toEqual(changes);
  });
});
