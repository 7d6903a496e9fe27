import { closeDeps, createLogger, openDeps } from '@entia/api';
import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import { stopWithParent } from '@entia/stack';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import request from 'supertest';
import { eventually } from './eventually';
import { freePort } from './processes';
import { testApi, testConfig, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// CACHE_REDIS_URL (issue 22): what may be lost (cached GETs, their generation tokens, rate-limit
// counts) on a Redis of its own, here a redis-server this test starts; what must not be lost
// (queues, leases, idempotency records) stays on REDIS_URL, the test stack's Redis.
jest.setTimeout(60_000);

interface OwnRedis {
  url: string;
  client: Redis;
  stop(): Promise<void>;
}

/** A throwaway redis-server on a free port: no snapshot, no append-only file, killed by `stop`. */
async function startRedis(port?: number): Promise<OwnRedis> {
  port ??= await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  stopWithParent(child);
  const exited = once(child, 'exit');
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  for (let attempt = 0; ; attempt++) {
    try {
      await client.connect();
      await client.ping();
      break;
    } catch (err) {
      if (attempt > 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    client,
    async stop() {
      client.disconnect();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const keysOf = (redis: Redis, prefix: string) => redis.keys(`${prefix}:*`);

describe('the cache on a Redis of its own (CACHE_REDIS_URL)', () => {
  let cache: OwnRedis;
  let api: TestApi;
  let t: TestTenant;
  let prefix: string;
  let note: string;
  let worker: RunningWorker;

  beforeAll(async () => {
    cache = await startRedis();
    await cache.client.config('SET', 'maxmemory-policy', 'allkeys-lru');
    api = testApi({ CACHE_REDIS_URL: cache.url });
    prefix = api.deps.config.REDIS_PREFIX;
    t = await testTenant(api);
    note = await t.defineType('note', [{ name: 'body', type: 'string' }]);
    // The worker's derived changes invalidate cached pages too: it must use the cache's Redis as well.
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
  });

  afterAll(async () => {
    await worker.close();
    await t.close();
    await api.deps.store.database(t.db).dropDatabase();
    await api.deps.store.control.dropDatabase();
    await api.close();
    await cache.stop();
  });

  const get = (id: string) => request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth);
  const bodyOf = (res: request.Response) => res.body.entity.body[0].string as string;
  const create = async (text: string) => {
    const res = await t.create([{ type: '_type', reference: note }, { type: 'body', string: text }]);
    expect(res.status).toBe(201);
    return res.body._id as string;
  };
  const change = async (id: string, text: string) => {
    const value = (await get(id)).body.entity.body[0]._id;
    const res = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: 'body', _id: value, string: text }]);
    expect(res.status).toBe(200);
  };

  it('keeps cached GETs, their tokens and the rate-limit counts on the cache Redis, and the rest on REDIS_URL', async () => {
    const id = await create('kept apart');
    expect((await get(id)).headers['x-cache']).toBe('miss');
    const hit = await get(id);
    expect(hit.headers['x-cache']).toBe('hit');
    expect(hit.headers.ratelimit).toBeDefined();
    const keyed = await request(api.app)
      .post(`/api/${t.db}/entity`)
      .set('Authorization', t.owner.auth)
      .set('Idempotency-Key', 'roles-1')
      .send([{ type: '_type', reference: note }, { type: 'body', string: 'with a key' }]);
    expect(keyed.status).toBe(201);

    const kindOf = (key: string) => key.slice(prefix.length + 1).split(':')[0];
    const onCache = new Set((await keysOf(cache.client, prefix)).map(kindOf));
    const onQueue = new Set((await keysOf(api.deps.redis, prefix)).map(kindOf));
    expect([...onCache].sort()).toEqual(['cache', 'gen', 'rl']);
    expect(onQueue).toContain('idem');
    for (const kind of ['cache', 'gen', 'rl']) expect(onQueue).not.toContain(kind);
  });

  it('never serves a stale page when the cache Redis evicts a generation token but keeps the page', async () => {
    const id = await create('v1');
    const tokenKey = `${prefix}:gen:${t.db}:e:${id}`;
    // Evicted before the first read: the page is stored under a token of the reader's own.
    expect(await cache.client.del(tokenKey)).toBe(1);
    expect(bodyOf(await get(id))).toBe('v1');
    expect((await get(id)).headers['x-cache']).toBe('hit');

    await change(id, 'v2');
    // The write's token is evicted too, the stale page is not (an LRU may keep either).
    expect(await cache.client.del(tokenKey)).toBe(1);
    expect((await cache.client.keys(`${prefix}:cache:${t.db}:${id}:*`)).length).toBeGreaterThan(0);
    const after = await get(id);
    expect([after.headers['x-cache'], bodyOf(after)]).toEqual(['miss', 'v2']);
    expect((await get(id)).headers['x-cache']).toBe('hit');
  });

  it('never serves a stale page when the cache Redis is flushed between a write and a read', async () => {
    const id = await create('before the flush');
    await get(id);
    expect((await get(id)).headers['x-cache']).toBe('hit');
    await change(id, 'after the flush');
    await cache.client.flushall();
    const read = await get(id);
    expect([read.status, read.headers['x-cache'], bodyOf(read)]).toEqual([200, 'miss', 'after the flush']);
    expect((await get(id)).headers['x-cache']).toBe('hit');

    // A list cached before the flush, and a creation after it.
    const list = () => request(api.app).get(`/api/${t.db}/entity?_type.reference=${note}&body.string=listed`).set('Authorization', t.owner.auth);
    const first = await create('listed');
    expect((await list()).body.entities.map((e: { _id: string }) => e._id)).toEqual([first]);
    await cache.client.flushall();
    const second = await create('listed');
    expect((await list()).body.entities.map((e: { _id: string }) => e._id).sort()).toEqual([first, second].sort());
  });

  it('shows a value the worker derived, not the page cached before it (the worker invalidates on the cache Redis)', async () => {
    const company = await t.defineType('company', [{ name: 'name', type: 'string' }]);
    const contact = await t.defineType('contact', [
      { name: 'employer', type: 'reference' },
      { name: 'works_at', type: 'string', formula: 'employer.company.name' },
    ]);
    const made = await t.create([{ type: '_type', reference: company }, { type: 'name', string: 'Acme' }]);
    const employer = made.body._id as string;
    const person = (await t.create([{ type: '_type', reference: contact }, { type: 'employer', reference: employer }])).body._id as string;
    const worksAt = async () => {
      const res = await get(person);
      return { page: res.headers['x-cache'] as string, worksAt: res.body.entity.works_at?.[0]?.string as string | undefined };
    };
    // Derived, and its page cached (the settle replaces the token twice, around its commit).
    await eventually(worksAt, (seen) => seen.worksAt === 'Acme' && seen.page === 'hit');

    const name = (await get(employer)).body.entity.name[0]._id;
    const renamed = await request(api.app).post(`/api/${t.db}/entity/${employer}`).set('Authorization', t.owner.auth).send([{ type: 'name', _id: name, string: 'Acme Ltd' }]);
    expect(renamed.status).toBe(200);
    expect(await eventually(worksAt, (seen) => seen.worksAt === 'Acme Ltd')).toMatchObject({ worksAt: 'Acme Ltd' });
  });

  it('serves reads uncached while the cache Redis is down, and refuses writes with a clear 503', async () => {
    const id = await create('cache going away');
    await get(id);
    await cache.stop();
    for (let i = 0; i < 3; i++) {
      const read = await get(id);
      expect([read.status, read.headers['x-cache'], bodyOf(read)]).toEqual([200, 'miss', 'cache going away']);
      expect(read.headers.ratelimit).toBeUndefined();
    }
    // A write must invalidate the cached copies of what it changes before it is stored; it cannot
    // now, so it stores nothing and says to retry (docs/deployment.md, "Redis: the queue and the cache").
    const refused = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send([{ type: 'body', string: 'not written' }]);
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.text).not.toContain(cache.url);
    expect(bodyOf(await get(id))).toBe('cache going away');
    expect((await get(id)).body.entity.body).toHaveLength(1);
  });

  it('caches again once the cache Redis is back (empty), and takes writes again', async () => {
    cache = await startRedis(Number(new URL(cache.url).port));
    const id = (await request(api.app).get(`/api/${t.db}/entity?_type.reference=${note}&body.string=cache going away`).set('Authorization', t.owner.auth)).body.entities[0]._id as string;
    // The client reconnects by itself (within its 2 s retry step); until then reads are misses.
    let seen: string | undefined;
    for (let i = 0; i < 100 && seen !== 'hit'; i++) {
      seen = (await get(id)).headers['x-cache'];
      if (seen !== 'hit') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen).toBe('hit');
    await change(id, 'cache is back');
    expect(bodyOf(await get(id))).toBe('cache is back');
  });
});

describe('the eviction policy check at start', () => {
  let own: OwnRedis;
  beforeAll(async () => {
    own = await startRedis();
  });
  afterAll(() => own.stop());

  /** The start-up lines about Redis of an API started with these settings. */
  async function startupLines(settings: Record<string, string>, expected: number): Promise<{ level: number; msg: string; redis: string }[]> {
    const lines: { level: number; msg: string; redis?: string }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
        done();
      },
    });
    const config = testConfig(settings);
    const deps = openDeps(config, createLogger('info', sink));
    try {
      for (let i = 0; i < 100 && lines.filter((line) => line.redis).length < expected; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      return lines.filter((line): line is { level: number; msg: string; redis: string } => line.redis !== undefined);
    } finally {
      await closeDeps(deps);
      for (const line of lines) expect(JSON.stringify(line)).not.toContain(own.url);
    }
  }
  const WARN = 40;

  it('warns when the queue\'s Redis may evict (one server for both)', async () => {
    await own.client.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const [line, ...more] = await startupLines({ REDIS_URL: own.url }, 1);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: WARN, redis: 'both', policy: 'allkeys-lru' });
    expect(line!.msg).toMatch(/may evict keys \(maxmemory-policy allkeys-lru\).*set maxmemory-policy noeviction.*CACHE_REDIS_URL/);
  });

  it('warns when only the queue\'s Redis may evict', async () => {
    await own.client.config('SET', 'maxmemory-policy', 'volatile-lru');
    const lines = await startupLines({ REDIS_URL: own.url, CACHE_REDIS_URL: process.env.REDIS_URL! }, 2);
    expect(lines.find((line) => line.redis === 'queue')).toMatchObject({ level: WARN, msg: expect.stringMatching(/queue's Redis may evict keys/) });
  });

  it('is quiet when the queue does not evict and the cache does', async () => {
    await own.client.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const stack = new Redis(process.env.REDIS_URL!);
    const stackPolicy = (await stack.config('GET', 'maxmemory-policy').finally(() => stack.disconnect())) as string[];
    expect(stackPolicy[1]).toBe('noeviction');
    const lines = await startupLines({ REDIS_URL: process.env.REDIS_URL!, CACHE_REDIS_URL: own.url }, 2);
    expect(lines.map((line) => [line.redis, line.level]).sort()).toEqual([
      ['cache', 30],
      ['queue', 30],
    ]);
  });

  it('warns when the cache\'s Redis has a memory limit and does not evict', async () => {
    await own.client.config('SET', 'maxmemory-policy', 'noeviction');
    await own.client.config('SET', 'maxmemory', '64mb');
    const lines = await startupLines({ REDIS_URL: process.env.REDIS_URL!, CACHE_REDIS_URL: own.url }, 2);
    expect(lines.find((line) => line.redis === 'cache')).toMatchObject({ level: WARN, msg: expect.stringMatching(/set maxmemory-policy allkeys-lru there/) });
    await own.client.config('SET', 'maxmemory', '0');
  });
});
