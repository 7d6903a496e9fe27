import { Store, newId, type HistoryCollection, type HistoryRow } from '@entia/store';
import { STACK_REACH_MS } from './stack-reach';

// The history collection against the test stack's MongoDB-protocol server (FerretDB here, mongod where available).
describe('HistoryCollection over a real MongoDB-protocol server', () => {
  const db = `t_history_${process.pid}`;
  const store = Store.open({ url: process.env.MONGODB_URL!, controlDb: `t_history_ctl_${process.pid}`, timeoutMs: 5000, reachMs: STACK_REACH_MS });
  let history: HistoryCollection;
  const person = newId();

  beforeAll(async () => {
    history = store.history(db);
    await history.ensureIndexes();
  });

  afterAll(async () => {
    await store.database(db).dropDatabase();
    await store.control.dropDatabase();
    await store.close();
  });

  const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString();
  const row = (entity: string, version: number, type: string, day: number, more: Partial<HistoryRow> = {}): HistoryRow => ({
    id: newId(),
    entity,
    version,
    type,
    at: at(day),
    by: person,
    new: { _id: newId(), type, string: `${type}@${version}`, created: { at: at(day), by: person } },
    ...more,
  });

  it('records a row once however often it is delivered, and pages an entity’s rows newest first', async () => {
    const entity = newId();
    const rows = [row(entity, 1, '_created', 1), row(entity, 1, 'title', 1), row(entity, 2, 'title', 2), row(entity, 4, 'tag', 3)];
    await history.record(rows.slice(0, 2));
    // Delivered again by the worker, with the rest: the first two are there already.
    await history.record(rows);
    await history.record(rows.slice(3));
    const page = await history.page(entity, 10, 0);
    expect(page.count).toBe(4);
    expect(page.changes.map((c) => [c.type, c.new?.string])).toEqual([
      ['tag', 'tag@4'],
      ['title', 'title@2'],
      ['title', 'title@1'],
      ['_created', '_created@1'],
    ]);
    expect((await history.page(entity, 2, 1)).changes.map((c) => c.new?.string)).toEqual(['title@2', 'title@1']);
    expect(await history.page(entity, 0, 0)).toEqual({ changes: [], count: 4 });
    expect(await history.page(newId(), 10, 0)).toEqual({ changes: [], count: 0 });
  });

  it('orders by the entity’s version, not by the clocks of the processes that wrote', async () => {
    const entity = newId();
    // Version 3 was written by a process whose clock was behind.
    await history.record([row(entity, 2, 'title', 5), row(entity, 3, 'title', 4)]);
    expect((await history.page(entity, 10, 0)).changes.map((c) => c.new?.string)).toEqual(['title@3', 'title@2']);
    // `until` takes what was made by then, oldest first.
    expect((await history.until(entity, at(4))).map((c) => c.new?.string)).toEqual(['title@3']);
    expect((await history.until(entity, at(6))).map((c) => c.new?.string)).toEqual(['title@2', 'title@3']);
  });

  it('keeps the owners of a deleted entity, and expires its whole history after the retention', async () => {
    const old = newId();
    const recent = newId();
    const living = newId();
    await history.record([
      row(old, 1, '_created', 1),
      row(old, 2, '_deleted', 2, { new: undefined, owners: [person] }),
      row(recent, 1, '_created', 1),
      row(recent, 2, '_deleted', 20, { new: undefined, owners: [] }),
      row(living, 1, '_created', 1),
    ]);
    expect(await history.lastOwners(old)).toEqual([person]);
    expect(await history.lastOwners(recent)).toEqual([]);
    expect(await history.lastOwners(living)).toBeUndefined();
    // Deleted before 2026-01-11: gone, with every row of it.
    expect(await history.expire(new Date(Date.UTC(2026, 0, 11)))).toBe(1);
    expect((await history.page(old, 10, 0)).count).toBe(0);
    expect(await history.lastOwners(old)).toBeUndefined();
    expect((await history.page(recent, 10, 0)).count).toBe(2);
    expect((await history.page(living, 10, 0)).count).toBe(1);
  });
});
