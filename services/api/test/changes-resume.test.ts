import { addValues, createEntity } from '@entia/entities';
import { startWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { liveStream, SseReader } from './sse';
import { API_MAIN, freePort, spawnService, stackEnv, waitForStatus } from './processes';
import { listening, sharedWith, testApi, type Listening, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// Issue 18: resuming a change stream (on another API replica), retention, and durability of the
// events themselves.
describe('resuming the change feed', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let replica: TestApi;
  let replicaServer: Listening;
  let replicaUrl: string;
  let t: TestTenant;
  let book: string;
  const open: SseReader[] = [];

  beforeAll(async () => {
    api = testApi();
    // A second API process in all but the process: its own connections, hub and streams, the same Redis and database.
    replica = testApi({ REDIS_PREFIX: api.deps.config.REDIS_PREFIX });
    replicaServer = await listening(replica.app);
    replicaUrl = replicaServer.url;
    t = await testTenant(api);
    book = await t.defineType('book', [{ name: 'title', type: 'string' }]);
  });
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });
  afterAll(async () => {
    await replicaServer.close();
    await t.close();
    await Promise.all([api.close(), replica.close()]);
  });

  const track = (stream: SseReader) => {
    open.push(stream);
    return stream;
  };
  const created = async (title: string) => {
    const res = await t.create([{ type: '_type', reference: book }, { type: 'title', string: title }]);
    expect(res.status).toBe(201);
    return res.body._id as string;
  };
  const auth = () => ({ Authorization: t.owner.auth });

  it('resumes through another replica, a process of its own, after a disconnect: nothing missed, nothing twice', async () => {
    const port = await freePort();
    const other = spawnService(API_MAIN, stackEnv({ ...sharedWith(api), PORT: String(port) }));
    try {
      await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 30_000);
      const first = track(await liveStream(t.baseUrl, t.db, '', auth()));
      const seen = [await created('one'), await created('two')];
      for (const id of seen) await first.next((e) => e.data.entity === id);
      const lastId = first.changes[first.changes.length - 1]!.id!;
      first.close();

      const missed = [];
      for (let i = 0; i < 5; i++) missed.push(await created(`missed ${i}`));
      const second = track(await SseReader.open(`http://127.0.0.1:${port}/api/${t.db}/changes`, { ...auth(), 'Last-Event-ID': lastId }));
      expect(second.status).toBe(200);
      await second.next((e) => e.event === 'ready');
      const live = await created('live');
      await second.next((e) => e.data.entity === live);
      expect(second.changes.map((e) => e.data.entity)).toEqual([...missed, live]);
      expect(second.events.find((e) => e.event === 'reset')).toBeUndefined();
      second.close();
    } finally {
      await other.stop();
    }
  });

  it('a stream\'s ready id is where it starts: resuming from it misses nothing written meanwhile', async () => {
    const s = track(await liveStream(t.baseUrl, t.db, '', auth()));
    const ready = s.events.find((e) => e.event === 'ready')!;
    s.close();
    const meanwhile = await created('meanwhile');
    const again = track(await liveStream(replicaUrl, t.db, `lastEventId=${encodeURIComponent(ready.id!)}`, auth()));
    expect(again.changes.map((e) => e.data.entity)).toEqual([meanwhile]);
  });

  it('an id past the retention, from another epoch or malformed gets `reset`, then live events', async () => {
    const small = testApi({ REDIS_PREFIX: api.deps.config.REDIS_PREFIX, CHANGE_LOG_MAX_EVENTS: '3' });
    const { url, close } = await listening(small.app);
    try {
      const s = track(await liveStream(url, t.db, '', auth()));
      const ready = s.events.find((e) => e.event === 'ready')!.id!;
      s.close();
      // Written through the replica whose log keeps 3 events: the first ones are trimmed.
      for (let i = 0; i < 5; i++) {
        expect((await request(small.app).post(`/api/${t.db}/entity`).set(auth()).send([{ type: '_type', reference: book }, { type: 'title', string: `t${i}` }])).status).toBe(201);
      }
      for (const lastEventId of [ready, `${ready.split('.')[0]}.0123456789abcdef`, 'garbage']) {
        const resumed = track(await SseReader.open(`${url}/api/${t.db}/changes`, { ...auth(), 'Last-Event-ID': lastEventId }));
        expect(resumed.status).toBe(200);
        const reset = await resumed.next((e) => e.event === 'reset');
        expect(reset.data.reason).toMatch(/reload/);
        expect(reset.id).toMatch(/^\d+-\d+\.[0-9a-f]{16}$/);
        await resumed.next((e) => e.event === 'ready');
        expect(resumed.changes).toEqual([]);
        const after = await created('after the reset');
        await resumed.next((e) => e.data.entity === after);
        resumed.close();
      }
    } finally {
      await close();
      await small.close();
    }
  });

  it('changes whose publication was lost with their process are published by the worker, once', async () => {
    const s = track(await liveStream(t.baseUrl, t.db, '', auth()));
    const id = await created('durable');
    await s.next((e) => e.data.entity === id);
    // The request's process "dies" between the commit and the publication: its publish never happens.
    const real = api.deps.changes;
    const lost = { ...api.deps, changes: { intend: real.intend.bind(real), publish: () => Promise.reject(new Error('the process died')) } } as unknown as typeof api.deps;
    const tenant = { name: t.db, record: (await api.deps.store.registry.database(t.db))!, entities: api.deps.store.entities(t.db), caller: { personId: t.owner.id } };
    await addValues(lost, tenant, id, [{ type: 'title', string: 'durable, renamed' }]);
    const born = (await createEntity(lost, tenant, [{ type: '_type', reference: book }, { type: 'title', string: 'born in a dying process' }]))._id;
    const worker = startWorker({ ...api.deps.config, SWEEP_INTERVAL_MS: 500 }, pino({ level: 'silent' }));
    try {
      // The change: from the entity's outbox, by its settle. The creation: from its intent, by the sweep.
      const renamed = await s.next((e) => e.data.entity === id && e.data.version === 2, 30_000);
      expect(renamed.data.properties).toEqual(['title']);
      expect((await s.next((e) => e.data.entity === born, 30_000)).data).toMatchObject({ kind: 'created', version: 1 });
      // A second publication of the same change (a retry, the sweep after the settle) adds nothing to the log.
      await real.publish(t.db, (await real.read(t.db, '0-0', 10_000)).find((entry) => entry.record.entity === born)!.record);
      const log = await real.read(t.db, '0-0', 10_000);
      expect(log.filter((entry) => entry.record.entity === id).map((entry) => entry.record.version)).toEqual([1, 2]);
      expect(log.filter((entry) => entry.record.entity === born).map((entry) => entry.record.version)).toEqual([1]);
      expect(await real.intended(t.db, 0, 100)).toEqual([]);
    } finally {
      await worker.close();
    }
  });
});
