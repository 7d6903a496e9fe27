import { Redis } from 'ioredis';
import { indexed, type Entity } from '@entia/domain';
import { EntityWriter, RedisLeases, Store, newId, queryFailure } from '@entia/store';
import { DroppingProxy } from './dropping-proxy';
import { stackConnected } from './stack-reach';

// A commit whose connection drops has either happened or not; the writer must say which. Runs
// against the test stack's MongoDB-protocol server and Redis, through a proxy that cuts the
// connection of one command: after the server carried it out, or before it saw it.
describe('EntityWriter when the connection drops during a commit', () => {
  const db = `t_writer_${process.pid}`;
  let proxy: DroppingProxy;
  let store: Store;
  let redis: Redis;
  let writer: EntityWriter;

  beforeAll(async () => {
    proxy = await DroppingProxy.start(process.env.MONGODB_URL!);
    store = Store.open({ url: proxy.url, controlDb: `t_writer_ctl_${process.pid}`, timeoutMs: 5000, reachMs: 1000 });
    await stackConnected(store);
    redis = new Redis(process.env.REDIS_URL!);
    const leases = new RedisLeases({ run: (call) => call(redis) }, `t_writer_${process.pid}`, { ttlMs: 5000, waitMs: 5000 });
    writer = new EntityWriter(store, leases);
  });

  afterAll(async () => {
    await store.database(db).dropDatabase();
    await store.control.dropDatabase();
    await store.close();
    redis.disconnect();
    await proxy.close();
  });

  const named = (name: string): Entity => ({ _id: newId(), properties: { name: [{ _id: newId(), type: 'name', string: name, created: { at: new Date().toISOString(), by: newId() } }] } });
  const nameOf = async (id: string) => (await store.entities(db).get(id))?.entity.properties.name?.[0]?.string;
  const rename = (id: string, name: string) =>
    writer.update(db, id, async (current) => ({
      next: { kind: 'replace', stored: indexed({ _id: id, properties: { name: [{ ...current!.entity.properties.name![0]!, string: name }] } }, new Set()) },
      outcome: name,
    }));

  it('answers a create that was stored, though its answer was lost, as stored', async () => {
    const entity = named('kept');
    const dropped = proxy.drop('insert', 'answer');
    await expect(writer.create(db, { stored: indexed(entity, new Set()) })).resolves.toBeUndefined();
    await dropped;
    expect(await nameOf(entity._id)).toBe('kept');
  });

  it('fails a create whose request was lost as unreachable, with nothing stored', async () => {
    const entity = named('never');
    const dropped = proxy.drop('insert', 'request');
    const failure = await writer.create(db, { stored: indexed(entity, new Set()) }).then(() => undefined, (error: unknown) => error);
    await dropped;
    expect(queryFailure(failure)).toBe('unreachable');
    expect(await nameOf(entity._id)).toBeUndefined();
  });

  it('answers a batch of creates that was stored, though its answer was lost, as stored', async () => {
    const batch = [named('one'), named('two'), named('three')];
    const dropped = proxy.drop('insert', 'answer');
    await expect(writer.createMany(db, batch.map((entity) => ({ stored: indexed(entity, new Set()) })))).resolves.toBeUndefined();
    await dropped;
    expect(await Promise.all(batch.map((entity) => nameOf(entity._id)))).toEqual(['one', 'two', 'three']);
  });

  it('fails a batch of creates whose request was lost as unreachable, with none of them stored', async () => {
    const batch = [named('never 1'), named('never 2')];
    const dropped = proxy.drop('insert', 'request');
    const failure = await writer.createMany(db, batch.map((entity) => ({ stored: indexed(entity, new Set()) }))).then(() => undefined, (error: unknown) => error);
    await dropped;
    expect(queryFailure(failure)).toBe('unreachable');
    expect(await Promise.all(batch.map((entity) => nameOf(entity._id)))).toEqual([undefined, undefined]);
  });

  it('answers an update that was stored, though its answer was lost, as stored', async () => {
    const entity = named('before');
    await writer.create(db, { stored: indexed(entity, new Set()) });
    const dropped = proxy.drop('update', 'answer');
    await expect(rename(entity._id, 'after')).resolves.toBe('after');
    await dropped;
    expect(await nameOf(entity._id)).toBe('after');
  });

  it('tries an update whose request was lost once more, under its lease, and stores it', async () => {
    const entity = named('before');
    await writer.create(db, { stored: indexed(entity, new Set()) });
    const dropped = proxy.drop('update', 'request');
    await expect(rename(entity._id, 'after')).resolves.toBe('after');
    await dropped;
    expect(await nameOf(entity._id)).toBe('after');
  });
});
