import { expireHistory } from '@entia/entities';
import { Store, newId } from '@entia/store';
import { STACK_REACH_MS } from '../../store/test/stack-reach';

// The worker's hourly pass: every registered database's deleted entities lose their history after the retention.
describe('expireHistory', () => {
  const control = `t_expire_ctl_${process.pid}`;
  const store = Store.open({ url: process.env.MONGODB_URL!, controlDb: control, timeoutMs: 5000, reachMs: STACK_REACH_MS });
  const databases = [`t_expire_a_${process.pid}`, `t_expire_b_${process.pid}`];

  afterAll(async () => {
    for (const db of databases) await store.database(db).dropDatabase();
    await store.control.dropDatabase();
    await store.close();
  });

  it('removes the history of entities deleted longer ago than the retention, in every database, and nothing else', async () => {
    const now = Date.UTC(2026, 5, 1);
    const daysAgo = (days: number) => new Date(now - days * 86_400_000).toISOString();
    const person = newId();
    const kept: string[] = [];
    for (const db of databases) {
      await store.registry.register({ _id: db, meta: { entity: newId(), property: newId(), person: newId(), database: newId() }, databaseEntity: newId(), createdAt: new Date() });
      const [gone, recent, living] = [newId(), newId(), newId()];
      const created = (entity: string) => ({ id: newId(), entity, version: 1, type: '_created', at: daysAgo(200), by: person });
      await store.history(db).record([
        created(gone),
        { id: newId(), entity: gone, version: 2, type: '_deleted', at: daysAgo(91), by: person, owners: [person] },
        created(recent),
        { id: newId(), entity: recent, version: 2, type: '_deleted', at: daysAgo(89), by: person, owners: [person] },
        created(living),
      ]);
      kept.push(`${db}/${gone}:0`, `${db}/${recent}:2`, `${db}/${living}:1`);
    }
    expect(await expireHistory(store, 90, now)).toBe(2);
    const counted: string[] = [];
    for (const db of databases) {
      const rows = await store.database(db).collection('history').find({}).toArray();
      for (const entity of new Set(rows.map((row) => row.entity.toHexString()))) counted.push(`${db}/${entity}:${rows.filter((row) => row.entity.toHexString() === entity).length}`);
    }
    expect(counted.sort()).toEqual(kept.filter((entry) => !entry.endsWith(':0')).sort());
    // A second pass finds nothing more.
    expect(await expireHistory(store, 90, now)).toBe(0);
  });
});
