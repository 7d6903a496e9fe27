import { setTimeout as sleep } from 'node:timers/promises';
import { Store, newId, pendingSince } from '@entia/store';
import { stackConnected } from './stack-reach';

// An entity is pending from the first change not yet settled: the sweep moving its mark to the back
// of the line, round after round, must not make it look younger.
describe('pending marks postponed by the sweep', () => {
  const db = 'books';
  let store: Store;

  beforeAll(async () => {
    store = Store.open({ url: process.env.MONGODB_URL!, controlDb: `t_pending_ctl_${process.pid}`, timeoutMs: 5000, reachMs: 1000 });
    await stackConnected(store);
  });
  afterAll(async () => {
    await store.control.dropDatabase();
    await store.close();
  });

  it('keep the time of the first mark, and its rederive, however often they are postponed', async () => {
    const pending = store.registry.pending;
    const entity = newId();
    await pending.mark(db, [entity], 3, { rederive: true });
    await sleep(10);
    await pending.mark(db, [entity], 1);
    const first = Math.min(...(await pending.of(db, entity)).map((mark) => mark.at.getTime()));
    for (let round = 0; round < 2; round++) {
      await sleep(10);
      await pending.postpone(db, entity);
    }
    const [mark, ...others] = await pending.of(db, entity);
    expect(others).toEqual([]);
    expect([pendingSince(mark!).getTime(), mark!.depth, mark!.rederive]).toEqual([first, 1, true]);
    // Behind the marks made since, in the sweep's order.
    expect(mark!.at.getTime()).toBeGreaterThan(first + 15);
    const stats = await pending.stats();
    expect([stats.count, stats.oldest?.getTime()]).toEqual([1, first]);
    await pending.clear([mark!]);
  });
});
