import { createApp } from '@entia/api';
import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from './eventually';
import { testApi, type TestApi } from './support';
import { testTenant, writtenOf, type Person, type TestTenant } from './tenant';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Statistics {
  organization: { string: string; language?: string }[];
  entities: { usage: number; deleted: number; limit: null };
  properties: { usage: number; deleted: number };
  requests: { usage: null; limit: null };
  tokens: { usage: number; limit: null };
  files: { usage: number; deleted: number; limit: null };
  dbSize: number | null;
  computedAt: string;
}

// Issue 32, item 8: GET /api/{db} (and /api/{db}/), Entu's database home, as its web client reads it.
describe('GET /api/{db}: a database\'s statistics for its members', () => {
  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let member: Person;
  let docType: string;

  beforeAll(async () => {
    api = testApi({ CORS_ORIGINS: '*', MONGODB_COMMAND_METRICS: 'true' });
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    t = await testTenant(api);
    member = await t.newPerson('Mia Member');
    docType = await t.defineType('doc', [
      { name: 'title', type: 'string' },
      { name: 'tag', type: 'string', list: true },
      { name: 'photo', type: 'file' },
      { name: 'attachment', type: 'file', list: true },
    ]);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await api?.close();
  });

  /** `auth` null: no Authorization header at all. */
  const home = (auth: string | null = t.owner.auth, path = `/api/${t.db}`) => {
    const req = request(api.app).get(path);
    return auth === null ? req : req.set('Authorization', auth);
  };
  /** What a request finds once the kept figures are gone: counted afresh. */
  async function fresh(auth = t.owner.auth): Promise<Statistics> {
    await api.deps.cacheRedis.del(`${api.deps.config.REDIS_PREFIX}:stats:${t.db}`);
    const res = await home(auth);
    expect(res.status).toBe(200);
    return res.body as Statistics;
  }
  const doc = async (values: object[]) => {
    const res = await t.create([{ type: '_type', reference: docType }, ...values]);
    expect(res.status).toBe(201);
    return res.body as { _id: string; properties: Record<string, { _id: string }[]> };
  };
  const add = async (id: string, values: object[]) => {
    const res = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send(values);
    expect(res.status).toBe(200);
    return res.body as { properties: { _id: string; type: string }[] };
  };
  const remove = async (path: string) => expect((await request(api.app).delete(`/api/${t.db}/${path}`).set('Authorization', t.owner.auth)).status).toBe(200);

  it('answers every key Entu\'s client reads, at /api/{db} and /api/{db}/ alike', async () => {
    const stats = await fresh();
    expect(stats).toEqual({
      organization: [{ string: t.db }],
      entities: { usage: expect.any(Number), deleted: expect.any(Number), limit: null },
      properties: { usage: expect.any(Number), deleted: expect.any(Number) },
      requests: { usage: null, limit: null },
      tokens: { usage: 0, limit: null },
      files: { usage: expect.any(Number), deleted: 0, limit: null },
      dbSize: expect.anything(),
      computedAt: expect.stringMatching(ISO),
    });
    // The meta-types, their definitions, the database entity, the owner, the member and the type `doc` with its four definitions.
    expect(stats.entities.usage).toBeGreaterThan(10);
    expect(stats.properties.usage).toBeGreaterThan(stats.entities.usage);
    expect(stats.dbSize === null || stats.dbSize > 0).toBe(true);

    const slashed = await home(t.owner.auth, `/api/${t.db}/`);
    expect(slashed.status).toBe(200);
    expect(slashed.body).toEqual(stats);
    expect(slashed.headers['cache-control']).toBe('no-store');
  });

  it('moves with what is created, added, replaced and deleted', async () => {
    const before = await fresh();

    const e = await doc([{ type: 'title', string: 'a' }, { type: 'photo', filename: 'p.png', filesize: 1234, filetype: 'image/png' }]);
    const created = await fresh();
    expect(created.entities.usage).toBe(before.entities.usage + 1);
    expect(created.properties.usage).toBeGreaterThan(before.properties.usage + 2);
    expect(created.files.usage).toBe(before.files.usage + 1234);

    const tag = writtenOf(await add(e._id, [{ type: 'tag', string: 'x' }, { type: 'attachment', filename: 'a.txt', filesize: 10, filetype: 'text/plain' }]), 'tag')[0]!;
    const added = await fresh();
    expect(added.properties.usage).toBe(created.properties.usage + 2);
    expect(added.files.usage).toBe(created.files.usage + 10);

    await remove(`property/${tag._id}`);
    const deleted = await fresh();
    expect(deleted.properties).toEqual({ usage: added.properties.usage - 1, deleted: added.properties.deleted + 1 });

    await add(e._id, [{ type: 'title', string: 'b' }]);
    const replaced = await fresh();
    expect(replaced.properties).toEqual({ usage: deleted.properties.usage, deleted: deleted.properties.deleted + 1 });

    await remove(`entity/${e._id}`);
    // An entity deleted counts until the worker has finished deleting it (seconds).
    const gone = await eventually(fresh, (stats) => stats.entities.deleted === replaced.entities.deleted + 1 && stats.entities.usage === replaced.entities.usage - 1);
    expect(gone.files.usage).toBe(before.files.usage);
    expect(gone.files.deleted).toBe(0);
  });

  it('counts once a minute per database: a second request reads the kept figures, counting nothing', async () => {
    const first = await fresh();
    await doc([{ type: 'title', string: 'not counted yet' }]);
    const commands: string[] = [];
    const stop = api.deps.store.onCommand((name) => commands.push(name));
    const again = await home();
    stop();
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first);
    expect(commands.filter((name) => name !== 'find')).toEqual([]);
    expect((await fresh()).entities.usage).toBe(first.entities.usage + 1);
  });

  it('a count longer than a request may wait is 503 with Retry-After, goes on, and is there for the next request', async () => {
    // MONGODB_TIMEOUT_MS 0: a request waits for no count (and each count runs without a time limit).
    const impatient = createApp({ ...api.deps, config: { ...api.deps.config, MONGODB_TIMEOUT_MS: 0 } });
    await api.deps.cacheRedis.del(`${api.deps.config.REDIS_PREFIX}:stats:${t.db}`);
    const first = await request(impatient).get(`/api/${t.db}`).set('Authorization', t.owner.auth);
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toMatch(/^\d+$/);
    expect(first.body.detail).toMatch(/being counted/);
    const later = await eventually(
      () => request(impatient).get(`/api/${t.db}`).set('Authorization', t.owner.auth),
      (res) => res.status === 200,
    );
    expect(later.body.entities.usage).toBeGreaterThan(0);
    // Kept where every API process looks.
    expect((await home()).body).toEqual(later.body);
  });

  it('answers every member, not only the owners; `organization` only when they may read the database entity', async () => {
    const owners = await fresh();
    const res = await home(member.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(owners);

    const [record] = (await api.deps.store.registry.allDatabases()).filter((r) => r._id === t.db);
    await add(record!.databaseEntity, [{ type: '_sharing', string: 'private' }]);
    expect((await home(member.auth)).body.organization).toEqual([]);
    expect((await home(t.owner.auth)).body.organization).toEqual([{ string: t.db }]);
    await add(record!.databaseEntity, [{ type: '_sharing', string: 'domain' }]);
  });

  it('is 401 without a token or with a forged one, 403 for a person of another database', async () => {
    const anonymous = await home(null);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/problem\+json/);
    expect((await home('Bearer not.a.token')).status).toBe(401);

    const other = await testTenant(api);
    try {
      const res = await home(other.owner.auth);
      expect(res.status).toBe(403);
      expect(JSON.stringify(res.body)).not.toMatch(/usage/);
    } finally {
      await other.close();
    }
  });

  it.each([
    ['a name no database has', '/api/constructor'],
    ['__proto__', '/api/__proto__'],
    ['a reserved name', '/api/admin'],
    ['a reserved name', '/api/config'],
    ['100 characters', `/api/${'a'.repeat(100)}`],
    ['an operator', '/api/$where'],
    ['upper case', '/api/ABC'],
  ])('is 404 for %s (%s), as every route of a database', async (_case, path) => {
    const res = await home(t.owner.auth, path);
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toMatch(/usage/);
  });

  it.each([['x=1'], ['__proto__=1'], ['entities.usage=5'], ['limit=10']])('is 400 naming a query parameter given (%s)', async (query) => {
    const res = await home(t.owner.auth, `/api/${t.db}?${query}`);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.errors)).toContain(query.split('=')[0]);
  });

  it('leaves the paths beside it alone: the API document and the key exchange', async () => {
    const document = await request(api.app).get('/api/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.paths['/api/{db}'].get.operationId).toBe('getDatabaseStatistics');
    expect(document.body.paths['/api/{db}'].get.security).toEqual([{ token: [] }]);
    expect((await request(api.app).get('/api/auth')).status).toBe(401);
    const post = await request(api.app).post(`/api/${t.db}`).set('Authorization', t.owner.auth).send({});
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it.each([[''], ['/']])('answers a browser\'s preflight at /api/{db}%s', async (slash) => {
    const res = await request(api.app)
      .options(`/api/${t.db}${slash}`)
      .set('Origin', 'https://app.example.com')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
  });
});
