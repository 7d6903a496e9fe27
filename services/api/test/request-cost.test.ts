import { Redis } from 'ioredis';
import { settleEntity } from '@entia/entities';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * What one request asks of Redis and MongoDB (issue 21): a cached GET is one Redis command (the
 * rate-limit count and the cache's token and entry read in one script) and no database command;
 * writes read no more than they must.
 * Redis commands are seen by MONITOR on a connection of the test's own (what the app sends, script
 * internals apart); MongoDB commands by the store's command monitoring.
 */
describe('the cost of a request in round trips', () => {
  let api: TestApi;
  let t: TestTenant;
  let monitor: Awaited<ReturnType<Redis['monitor']>>;
  let probe: Redis;
  let monitoring: Redis;
  const seen: string[][] = [];

  beforeAll(async () => {
    api = testApi({ MONGODB_COMMAND_METRICS: 'true' });
    t = await testTenant(api);
    probe = new Redis(process.env.REDIS_URL!);
    monitoring = new Redis(process.env.REDIS_URL!);
    monitor = await monitoring.monitor();
    const prefix = api.deps.config.REDIS_PREFIX;
    // Commands of this app only (every key it uses starts with its prefix), not those a script runs.
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.startsWith(`${prefix}:`))) seen.push(args);
    });
  });
  afterAll(async () => {
    monitor.disconnect();
    monitoring.disconnect();
    probe.disconnect();
    await t.close();
    await api.close();
  });

  /** The Redis commands and database commands `send` causes; MONITOR is ordered, so a marker read after it ends the list. */
  async function costOf(send: () => Promise<request.Response>): Promise<{ status: number; cache: string; redis: string[]; mongodb: string[] }> {
    const mongodb: string[] = [];
    const stop = api.deps.store.onCommand((name) => mongodb.push(name));
    seen.length = 0;
    const res = await send();
    stop();
    const marker = `${api.deps.config.REDIS_PREFIX}:marker:${Math.random()}`;
    await probe.get(marker);
    for (let i = 0; i < 100 && !seen.some((args) => args.includes(marker)); i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const redis = seen.filter((args) => !args.includes(marker)).map((args) => args[0]!.toLowerCase());
    return { status: res.status, cache: String(res.headers['x-cache']), redis, mongodb };
  }

  it('a cached GET of an entity: one Redis command, no database command; uncached: one find more, and the entry stored', async () => {
    const created = await t.create([{ type: '_type', reference: t.types.entity }, { type: 'name', string: 'costly' }]);
    const get = () => request(api.app).get(`/api/${t.db}/entity/${created.body._id}`).set('Authorization', t.owner.auth);

    expect(await costOf(get)).toEqual({ status: 200, cache: 'miss', redis: ['evalsha', 'set'], mongodb: ['find'] });
    expect(await costOf(get)).toEqual({ status: 200, cache: 'hit', redis: ['evalsha'], mongodb: [] });
  });

  it('a cached list: one Redis command, no database command', async () => {
    const list = () => request(api.app).get(`/api/${t.db}/entity?_type.reference=${t.types.entity}&limit=5`).set('Authorization', t.owner.auth);
    expect((await costOf(list)).cache).toBe('miss');
    expect(await costOf(list)).toEqual({ status: 200, cache: 'hit', redis: ['evalsha'], mongodb: [] });
  });

  it('an uncached list: one find for the page and one count; with count=none, the find alone', async () => {
    const list = (extra: string) => () =>
      request(api.app).get(`/api/${t.db}/entity?_type.reference=${t.types.entity}&sort=-_created.datetime&limit=3${extra}`).set('Authorization', t.owner.auth);
    // (A sort by `_created` has its index from the start: a property's sort would also, once per
    // database and process, list the indexes and build its own in the background.)
    const counted = await costOf(list(''));
    expect([counted.status, counted.cache, counted.mongodb.sort()]).toEqual([200, 'miss', ['aggregate', 'find']]);
    const uncounted = await costOf(list('&count=none'));
    expect([uncounted.status, uncounted.cache, uncounted.mongodb]).toEqual([200, 'miss', ['find']]);
  });

  it('a change reads the entity once (not the caller too); a create reads the caller, and a reference only when not read since it was last written', async () => {
    const note = await t.defineType('note', [{ name: 'body', type: 'string' }, { name: 'about', type: 'reference' }]);
    const created = await t.create([{ type: '_type', reference: note }, { type: 'body', string: 'first' }]);
    const post = (path: string, values: object[]) => () => request(api.app).post(`/api/${t.db}${path}`).set('Authorization', t.owner.auth).send(values);
    // Where the engine serves only a lone `_id` from its key (FerretDB), the compare-and-set reads
    // the version by `_id` first: one find more, instead of a scan (EntityCollection.commit).
    const fence = (await api.deps.store.keyLookups()) === 'lone-id' ? ['find'] : [];
    // The write of a change: the entity alone, its history rows in its outbox, which marks it
    // unsettled in the same write. Of a create that leaves no work for the worker: the entity and
    // its history.
    const change = await costOf(post(`/entity/${created.body._id}`, [{ type: 'body', string: 'more' }]));
    expect([change.status, change.mongodb.sort()]).toEqual([200, ['find', ...fence, 'update'].sort()]);
    // The caller (whose name labels `_owner` and `_created`) is read by every create (checks.ts, `readFirst`).
    const plain = await costOf(post('/entity', [{ type: '_type', reference: note }, { type: 'body', string: 'new' }]));
    expect([plain.status, plain.mongodb.sort()]).toEqual([201, ['find', 'insert', 'insert']]);
    // A reference to what was just written is read once, then taken from the target cache until it changes.
    const about = (id: string) => post('/entity', [{ type: '_type', reference: note }, { type: 'about', reference: id }]);
    const referring = await costOf(about(created.body._id));
    expect([referring.status, referring.mongodb.sort()]).toEqual([201, ['find', 'find', 'insert', 'insert']]);
    const again = await costOf(about(created.body._id));
    expect([again.status, again.mongodb.sort()]).toEqual([201, ['find', 'insert', 'insert']]);
    await costOf(post(`/entity/${created.body._id}`, [{ type: 'body', string: 'changed' }]));
    const afterChange = await costOf(about(created.body._id));
    expect([afterChange.status, afterChange.mongodb.sort()]).toEqual([201, ['find', 'find', 'insert', 'insert']]);
  });

  it("the worker's settle of a change: the entity read, its history recorded, its outbox emptied (3 commands, the fence apart)", async () => {
    const note = await t.defineType('memo', [{ name: 'body', type: 'string' }]);
    const id = (await t.create([{ type: '_type', reference: note }, { type: 'body', string: 'first' }])).body._id as string;
    await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: 'body', string: 'more' }]).expect(200);
    // No worker runs beside this API: the settle the change queued is run here, as the worker's processor runs it.
    expect((await api.deps.store.entities(t.db).stored(id))!.unsettled).toBeInstanceOf(Date);
    const fence = (await api.deps.store.keyLookups()) === 'lone-id' ? ['find'] : [];
    const record = (await api.deps.store.registry.database(t.db))!;
    const mongodb: string[] = [];
    const stop = api.deps.store.onCommand((name) => mongodb.push(name));
    await settleEntity(api.deps, t.db, record, id, 0, { own: true });
    stop();
    expect(mongodb.sort()).toEqual(['find', ...fence, 'insert', 'update'].sort());
    const settled = (await api.deps.store.entities(t.db).stored(id))!;
    expect([settled.outbox, settled.unsettled]).toEqual([[], undefined]);
  });

  it('an anonymous cached GET too: the count is per IP, in the same command', async () => {
    const created = await t.create([
      { type: '_type', reference: t.types.entity },
      { type: 'name', string: 'public' },
      { type: '_sharing', string: 'public' },
    ]);
    const get = () => request(api.app).get(`/api/${t.db}/entity/${created.body._id}`);
    expect((await costOf(get)).cache).toBe('miss');
    expect(await costOf(get)).toEqual({ status: 200, cache: 'hit', redis: ['evalsha'], mongodb: [] });
  });
});
