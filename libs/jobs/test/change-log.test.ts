import { randomBytes } from 'node:crypto';
import { ChangeLog, RedisBreaker, comparePositions, createRedis } from '@entia/jobs';

// The change log (issue 18) on the real Redis: publication once per key, order, retention and the
// resets it causes.
describe('ChangeLog', () => {
  const redis = createRedis(process.env.REDIS_URL!, 'command', () => undefined, 2000);
  const breaker = new RedisBreaker(redis);
  const prefix = `t${randomBytes(6).toString('hex')}`;
  const log = (maxEvents = 100, maxAgeMs = 0) => new ChangeLog<{ key: string; n: number }>(breaker, prefix, { maxEvents, maxAgeMs });
  const db = () => `db_${randomBytes(4).toString('hex')}`;
  afterAll(() => redis.disconnect());

  it('publishes a key once: a second publication answers the first id and adds nothing', async () => {
    const changes = log();
    const name = db();
    const first = await changes.publish(name, { key: 'a:1', n: 1 });
    const again = await changes.publish(name, { key: 'a:1', n: 1 });
    await changes.publish(name, { key: 'a:2', n: 2 });
    expect(again).toBe(first);
    expect((await changes.read(name, '0-0', 10)).map((entry) => entry.record.n)).toEqual([1, 2]);
  });

  it('reads in order after a position, ids carrying the epoch', async () => {
    const changes = log();
    const name = db();
    const ids = [];
    for (let n = 0; n < 5; n++) ids.push(await changes.publish(name, { key: `k${n}`, n }));
    const entries = await changes.read(name, '0-0', 10);
    expect(entries.map((entry) => entry.id)).toEqual(ids);
    for (let i = 1; i < entries.length; i++) expect(comparePositions(entries[i - 1]!.position, entries[i]!.position)).toBe(-1);
    expect((await changes.read(name, entries[2]!.position, 10)).map((entry) => entry.record.n)).toEqual([3, 4]);
    expect(await changes.resume(name, ids[2]!)).toEqual({ from: entries[2]!.position });
    expect((await changes.head(name)).id).toBe(ids[4]);
  });

  it('resuming from before what the count bound dropped is a reset; from the last dropped one is not', async () => {
    const changes = log(3);
    const name = db();
    const ids = [];
    for (let n = 0; n < 6; n++) ids.push(await changes.publish(name, { key: `k${n}`, n }));
    expect((await changes.read(name, '0-0', 10)).map((entry) => entry.record.n)).toEqual([3, 4, 5]);
    expect(await changes.resume(name, ids[1]!)).toEqual({ reset: expect.stringMatching(/retention/) });
    expect(await changes.resume(name, ids[2]!)).toEqual({ from: ids[2]!.split('.')[0] });
  });

  it('drops events older than the age bound', async () => {
    const changes = log(100, 200);
    const name = db();
    const old = await changes.publish(name, { key: 'old', n: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await changes.publish(name, { key: 'new', n: 1 });
    expect((await changes.read(name, '0-0', 10)).map((entry) => entry.record.n)).toEqual([1]);
    expect(await changes.resume(name, old)).toEqual({ from: old.split('.')[0] });
    const before = `${Number(old.split('-')[0]) - 1}-0.${old.split('.')[1]}`;
    expect(await changes.resume(name, before)).toEqual({ reset: expect.stringMatching(/retention/) });
  });

  it('a log started anew (Redis lost its data) resets ids of the old one; malformed ids reset', async () => {
    const changes = log();
    const name = db();
    const id = await changes.publish(name, { key: 'a', n: 0 });
    await redis.del(changes.streamKey(name), `${prefix}:changes:{${name}}:epoch`, `${prefix}:changes:{${name}}:seen:a`);
    await changes.publish(name, { key: 'b', n: 1 });
    expect(await changes.resume(name, id)).toEqual({ reset: expect.stringMatching(/anew/) });
    for (const bad of ['', 'x', '1-0', '1-0.zz', `${'9'.repeat(30)}-0.0123456789abcdef`]) expect(await changes.resume(name, bad)).toEqual({ reset: expect.any(String) });
  });
});
