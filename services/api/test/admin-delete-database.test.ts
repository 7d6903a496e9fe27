import { countDatabaseKeys, deleteDatabase } from '@entia/entities';
import request from 'supertest';
import { runAdmin, runAdminHere } from './admin-cli';
import { sharedWith, testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * `entia-admin delete-database` (issue 22): confirmed, every trace gone (entities and history,
 * credentials, pending marks, Redis keys, file objects, the registry record), resumable after an
 * interruption, and another database untouched.
 */
describe('entia-admin delete-database', () => {
  let api: TestApi;
  let doomed: TestTenant;
  let kept: TestTenant;
  let env: Record<string, string>;
  let keptEntity: string;
  const prefix = () => api.deps.config.REDIS_PREFIX;

  beforeAll(async () => {
    // Key liveness looked up on every request: a revoked credential is refused at once.
    api = testApi({ KEY_RECHECK_MS: '0' });
    env = sharedWith(api);
    [doomed, kept] = [await testTenant(api), await testTenant(api)];
    for (const t of [doomed, kept]) {
      const created = await t.create([{ type: '_type', reference: t.types.entity }, { type: 'name', string: `a type of ${t.db}` }]);
      expect(created.status).toBe(201);
      if (t === kept) keptEntity = created.body._id;
      // File objects live under `<db>/` in the bucket.
      await api.deps.objects.write(`${t.db}/file-1`, Buffer.from(`one of ${t.db}`), 'text/plain');
      await api.deps.objects.write(`${t.db}/file-2`, Buffer.from(`two of ${t.db}`), 'text/plain');
      // Redis keys of each layout the database may have (admin/redis-keys.ts).
      const p = prefix();
      // (Ids no request uses, so the API's own use of these layouts is not disturbed.)
      const none = '000000000000000000000000';
      await api.deps.redis.mset(`${p}:gen:${t.db}:e:${none}`, '1', `${p}:cache:${t.db}:x`, 'cached', `${p}:lease:${t.db}/${none}`, 'held', `${p}:rl:person:${t.db}/${none}`, '3');
    }
  });

  afterAll(async () => {
    for (const t of [doomed, kept]) {
      await t?.close();
      if (t) {
        await api.deps.objects.removePrefix(`${t.db}/`);
        await api.deps.store.database(t.db).dropDatabase();
      }
    }
    await api.deps.redis.del(...(await api.deps.redis.keys(`${prefix()}:*`)).concat('none'));
    await api.deps.store.control.dropDatabase();
    await api.close();
  });

  const objectsOf = async (db: string) => {
    let count = 0;
    for await (const page of api.deps.objects.list(`${db}/`)) count += page.length;
    return count;
  };
  const keysOf = (db: string) => api.deps.store.control.collection('api_keys').countDocuments({ db });

  it('refuses without --yes when it cannot ask (stdin not a terminal): usage, exit 2, nothing deleted', async () => {
    const run = await runAdmin(['delete-database', doomed.db], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^entia-admin delete-database: not a terminal: pass --yes to delete without a confirmation\nusage: entia-admin delete-database <db> \[--yes\]/);
    expect(await api.deps.store.registry.database(doomed.db)).toBeDefined();
    expect(await objectsOf(doomed.db)).toBe(2);
  });

  it('at a terminal, asks to type the name; a wrong answer deletes nothing', async () => {
    const { code, stdout: out, stderr: err } = await runAdminHere(['delete-database', doomed.db], env, `${kept.db}\n`);
    expect(code).toBe(1);
    expect(err).toBe(`This deletes database "${doomed.db}" for good: its entities, history, keys and files. Type its name to go on: entia-admin delete-database: not confirmed; nothing deleted\n`);
    expect(out).toBe('');
    expect(await api.deps.store.registry.database(doomed.db)).toEqual(expect.not.objectContaining({ deleting: expect.anything() }));
    expect(await keysOf(doomed.db)).toBe(1);
  });

  it('resumes a deletion cut short, and leaves every other database as it was', async () => {
    const keptKeys = await countDatabaseKeys(api.deps.redis, prefix(), kept.db);
    expect(keptKeys).toBeGreaterThanOrEqual(4);
    // Cut short after the credentials went: Redis failed (nothing of Redis, objects and data deleted yet).
    const failing = { scan: () => Promise.reject(new Error('redis went away')), del: () => Promise.reject(new Error('redis went away')) };
    await expect(deleteDatabase({ store: api.deps.store, objects: api.deps.objects, redis: [failing], redisPrefix: prefix() }, doomed.db)).rejects.toThrow('redis went away');
    expect((await api.deps.store.registry.database(doomed.db))?.deleting).toBeInstanceOf(Date);
    // Its tokens stopped working with its credentials.
    expect((await request(api.app).get(`/api/${doomed.db}/entity/${doomed.types.entity}`).set('Authorization', doomed.owner.auth)).status).toBe(401);
    const listed = JSON.parse((await runAdmin(['databases', '--json'], env)).stdout) as { name: string; deleting?: string }[];
    expect(listed.find((row) => row.name === doomed.db)?.deleting).toEqual(expect.any(String));

    const run = await runAdmin(['delete-database', doomed.db, '--yes'], env);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout.split('\n')).toEqual([
      'marked: resuming an earlier deletion',
      'credentials: 0 removed',
      'pending: 0 marks removed',
      expect.stringMatching(/^redis: ([4-9]|\d\d+) keys removed$/),
      'objects: 2 objects removed',
      'data: database dropped',
      'registry: record removed',
      `Deleted database "${doomed.db}".`,
      '',
    ]);

    const store = api.deps.store;
    expect(await store.registry.database(doomed.db)).toBeUndefined();
    expect(await store.database(doomed.db).listCollections().toArray()).toEqual([]);
    expect(await keysOf(doomed.db)).toBe(0);
    expect(await objectsOf(doomed.db)).toBe(0);
    expect(await countDatabaseKeys(api.deps.redis, prefix(), doomed.db)).toBe(0);

    // The other database: all there, and served.
    expect(await objectsOf(kept.db)).toBe(2);
    expect(await keysOf(kept.db)).toBe(1);
    expect(await countDatabaseKeys(api.deps.redis, prefix(), kept.db)).toBe(keptKeys);
    const read = await request(api.app).get(`/api/${kept.db}/entity/${keptEntity}`).set('Authorization', kept.owner.auth);
    expect([read.status, read.body.entity.name[0].string]).toEqual([200, `a type of ${kept.db}`]);
  });

  it('a database that is gone: one clear line, exit 1', async () => {
    const again = await runAdmin(['delete-database', doomed.db, '--yes'], env);
    expect([again.code, again.stdout, again.stderr]).toEqual([1, '', `entia-admin delete-database: no database "${doomed.db}"\n`]);
  });

  it('at a terminal, deletes in one go once the name is typed', async () => {
    const run = await runAdminHere(['delete-database', kept.db], env, `${kept.db}\n`);
    expect([run.code, run.stderr]).toEqual([0, expect.stringMatching(/Type its name to go on: $/)]);
    expect(run.stdout).toMatch(/^marked: no longer served\ncredentials: 1 removed\n/);
    expect(await store().registry.database(kept.db)).toBeUndefined();
    expect(await objectsOf(kept.db)).toBe(0);
  });

  const store = () => api.deps.store;
});
