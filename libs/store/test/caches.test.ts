import { CACHE_POLICIES, boundOf } from '@entia/domain';
import { DatabaseRecords, Store } from '@entia/store';
import { STACK_REACH_MS } from './stack-reach';

/** The store's cache, built from its row of the cache policy (the rows are tested in libs/domain/test/caches.test.ts). */
describe("the store's caches", () => {
  const store = Store.open({ url: process.env.MONGODB_URL!, controlDb: `t_caches_ctl_${process.pid}`, timeoutMs: 5000, reachMs: STACK_REACH_MS });
  afterAll(() => store.close());

  it('DatabaseRecords: the database-records row, loading a record, no ttl (a record does not change)', () => {
    expect(boundOf(new DatabaseRecords(store.registry)['records'])).toEqual({ max: CACHE_POLICIES['database-records'].max, loads: true });
  });

  it('SortIndexes: the entity-indexes row (listing a database\'s indexes, read again after its ttl) and the sort-index-failures row', () => {
    expect(boundOf(store.sortIndexes['known'])).toEqual({ max: CACHE_POLICIES['entity-indexes'].max, ttl: CACHE_POLICIES['entity-indexes'].ttl, loads: true });
    expect(boundOf(store.sortIndexes['warned'])).toEqual({ max: CACHE_POLICIES['sort-index-failures'].max, loads: false });
  });
});
