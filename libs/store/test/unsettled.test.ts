import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { indexed, type Entity } from '@entia/domain';
import { EntityWriter, RedisLeases, Store, newId, type OutboxEntry } from '@entia/store';
import { stackConnected } from './stack-reach';

// An entity's own writes mark it unsettled in the document they write (beside its outbox), not
// with a second write elsewhere: the worker's sweep finds it there when its settle job was lost.
describe('an outbox marks its entity unsettled in the same write', () => {
  const db = `t_unsettled_${process.pid}`;
  let store: Store;
  let redis: Redis;
  let writer: EntityWriter;

  beforeAll(async () => {
    store = Store.open({ url: process.env.MONGODB_URL!, controlDb: `t_unsettled_ctl_${process.pid}`, timeoutMs: 5000, reachMs: 1000 });
    await stackConnected(store);
    await store.entities(db).ensureIndexes();
    redis = new Redis(process.env.REDIS_URL!);
    writer = new EntityWriter(store, new RedisLeases({ run: (call) => call(redis) }, `t_unsettled_${process.pid}`, { ttlMs: 5000, waitMs: 5000 }));
  });

  afterAll(async () => {
    await store.database(db).dropDatabase();
    await store.control.dropDatabase();
    await store.close();
    redis.disconnect();
  });

  const entity = (): Entity => ({ _id: newId(), properties: { name: [{ _id: newId(), type: 'name', string: 'x', created: { at: new Date().toISOString(), by: newId() } }] } });
  const work = (): OutboxEntry => ({ id: newId(), kind: 'delete-objects', keys: [] });
  const since = async (id: string) => (await store.entities(db).stored(id))?.unsettled?.getTime();
  const listed = async (id: string) => (await store.entities(db).unsettled(new Date(), 1000)).some((found) => found.id === id);
  const change = (id: string, add: OutboxEntry[], deliver: 'all' | 'none') =>
    writer.update(db, id, async (current) => ({ next: { kind: 'keep' }, add, delivered: deliver === 'all' ? current!.outbox.map((entry) => entry.id) : [], outcome: undefined }));

  it('a create with work is unsettled from its insert; one without is not', async () => {
    const [busy, idle] = [entity(), entity()];
    await writer.createMany(db, [{ stored: indexed(busy, new Set()), outbox: [work()] }, { stored: indexed(idle, new Set()) }]);
    expect([await listed(busy._id), await listed(idle._id)]).toEqual([true, false]);
    expect(await since(idle._id)).toBeUndefined();
  });

  it('keeps the time of its oldest waiting work while more is added, and drops it with the last', async () => {
    const created = entity();
    await writer.create(db, { stored: indexed(created, new Set()), outbox: [work()] });
    const first = await since(created._id);
    await sleep(20);
    await change(created._id, [work()], 'none');
    expect(await since(created._id)).toBe(first);
    await change(created._id, [], 'all');
    expect([await since(created._id), await listed(created._id)]).toEqual([undefined, false]);
  });

  it('starts afresh when the waiting work is delivered and new work added in one write', async () => {
    const created = entity();
    await writer.create(db, { stored: indexed(created, new Set()), outbox: [work()] });
    const first = (await since(created._id))!;
    await sleep(20);
    await change(created._id, [work()], 'all');
    expect(await since(created._id)).toBeGreaterThan(first);
  });

  it('lists the unsettled oldest first, and only those unsettled before the time asked', async () => {
    const [older, newer] = [entity(), entity()];
    await writer.create(db, { stored: indexed(older, new Set()), outbox: [work()] });
    await sleep(20);
    const between = new Date();
    await sleep(20);
    await writer.create(db, { stored: indexed(newer, new Set()), outbox: [work()] });
    const ids = (await store.entities(db).unsettled(new Date(), 1000)).map((found) => found.id);
    expect(ids.indexOf(older._id)).toBeLessThan(ids.indexOf(newer._id));
    const early = (await store.entities(db).unsettled(between, 1000)).map((found) => found.id);
    expect([early.includes(older._id), early.includes(newer._id)]).toEqual([true, false]);
  });
});
