import { MIGRATIONS, SCHEMA_VERSION, SchemaRecords } from '@entia/store';
import request from 'supertest';
import { makeOldSchema, runAdmin } from './admin-cli';
import { eventually } from './eventually';
import { API_MAIN, WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { sharedWith, testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * Upgrading (issue 22, docs/deployment.md "Upgrading (migrations)"): a database as the code
 * before migrations left it is refused by a real API process (every route 503 with the reason,
 * /readyz not ready) and held by a real worker (no job runs); `entia-admin migrate`, run as the
 * operator runs it, upgrades it with progress shown; both then serve, the data as before.
 */
describe('entia-admin migrate on an old-schema database', () => {
  const reason = `schema version 0, this version needs ${SCHEMA_VERSION}: run entia-admin migrate`;
  let api: TestApi;
  let t: TestTenant;
  let env: Record<string, string>;
  const procs: Spawned[] = [];
  let apiUrl: string;
  let workerUrl: string;
  let entityId: string;
  let before: unknown;
  let rebuild: string;

  beforeAll(async () => {
    // The in-process API stands for the old version: it has no schema gate.
    api = testApi();
    t = await testTenant(api);
    const typeId = await t.defineType('book', [
      { name: 'title', type: 'string', search: true },
      { name: 'pages', type: 'number', list: true },
    ]);
    const created = await t.create([
      { type: '_type', reference: typeId },
      { type: 'title', string: 'Middlemarch' },
      { type: 'pages', number: 880 },
      { type: 'pages', number: 904 },
    ]);
    expect(created.status).toBe(201);
    entityId = created.body._id;
    before = (await request(api.app).get(`/api/${t.db}/entity/${entityId}`).set('Authorization', t.owner.auth)).body;
    // A job queued before the upgrade: the held worker must not run it until migrate is done.
    const scheduled = await request(api.app).post(`/api/${t.db}/aggregate`).set('Authorization', t.owner.auth);
    expect(scheduled.status).toBe(202);
    rebuild = scheduled.body.id;

    await makeOldSchema(api.deps.store, t.db);

    env = { ...sharedWith(api), SCHEMA_RECHECK_MS: '200' };
    const [port, workerPort] = [await freePort(), await freePort()];
    apiUrl = `http://127.0.0.1:${port}`;
    workerUrl = `http://127.0.0.1:${workerPort}`;
    procs.push(spawnService(API_MAIN, stackEnv({ ...env, PORT: String(port) })));
    procs.push(spawnService(WORKER_MAIN, stackEnv({ ...env, WORKER_PORT: String(workerPort) })));
    await waitForStatus(`${apiUrl}/healthz`, (status) => status === 200, 20_000);
    await waitForStatus(`${workerUrl}/healthz`, (status) => status === 200, 20_000);
  }, 60_000);

  afterAll(async () => {
    for (const proc of procs) await proc.stop();
    await t?.close();
    if (t) await api.deps.store.database(t.db).dropDatabase();
    await api?.deps.store.control.dropDatabase();
    await api?.close();
  });

  const readyz = (url: string) => fetch(`${url}/readyz`).then(async (res) => ({ status: res.status, body: (await res.json()) as { detail?: string; status: string } }));
  const rebuildState = async () => (await request(api.app).get(`/api/${t.db}/aggregate/${rebuild}`).set('Authorization', t.owner.auth)).body.state as string;

  it('before: the API answers every route 503 with the reason, and is not ready; the worker holds its jobs', async () => {
    const ready = await eventually(() => readyz(apiUrl), (r) => r.body.detail === reason);
    expect(ready.status).toBe(503);

    const read = await fetch(`${apiUrl}/api/${t.db}/entity/${entityId}`, { headers: { Authorization: t.owner.auth } });
    expect(read.status).toBe(503);
    expect(read.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(read.headers.get('retry-after')).toBe('5');
    expect(await read.json()).toEqual(expect.objectContaining({ status: 503, detail: reason }));
    const auth = await fetch(`${apiUrl}/api/auth`, { headers: { Authorization: `Bearer ${t.owner.apiKey}` } });
    expect([auth.status, ((await auth.json()) as { detail: string }).detail]).toEqual([503, reason]);
    // The liveness probe stays up: the pod is not restarted for it.
    expect((await fetch(`${apiUrl}/healthz`)).status).toBe(200);

    const worker = await eventually(() => readyz(workerUrl), (r) => r.body.detail === reason);
    expect(worker.status).toBe(503);
    expect(await rebuildState()).toBe('waiting');
  });

  it('migrate --status shows the stored version, the needed one and what is pending', async () => {
    const status = await runAdmin(['migrate', '--status'], env);
    expect([status.code, status.stderr]).toEqual([0, '']);
    expect(status.stdout).toBe(
      [
        'stored schema version: 0',
        `this version needs: ${SCHEMA_VERSION}`,
        ...MIGRATIONS.map((m) => `pending: ${m.version} (${m.name})`),
        reason,
        '',
      ].join('\n'),
    );
  });

  it('is refused while another run holds the lock, naming it; nothing is applied', async () => {
    const lock = await new SchemaRecords(api.deps.store.control).lock(60_000, 'entia-admin migrate on other-host (pid 7)');
    if ('heldBy' in lock) throw new Error('the lock was taken');
    try {
      const refused = await runAdmin(['migrate'], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^entia-admin migrate: another migration is running \(entia-admin migrate on other-host \(pid 7\), since \S+\); try again when it has finished\n$/);
      expect((await new SchemaRecords(api.deps.store.control).read()).version).toBe(0);
    } finally {
      await lock.release();
    }
  });

  it('migrate upgrades it, showing progress: version recorded, values stripped, indexes built', async () => {
    const run = await runAdmin(['migrate'], env);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`schema at version 0; applying ${MIGRATIONS.map((m) => `${m.version} (${m.name})`).join(', ')}`);
    expect(lines).toContain('migration 1 (indexes): started');
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^migration 1: ${t.db}: built \\S+`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^migration 2: ${t.db}: (\\d+) entities scanned, \\1 upgraded$`)));
    expect(lines).toContainEqual(expect.stringMatching(/^migration 2 \(strip the stored type of values\): done in \d+\.\d s; schema version 2$/));
    expect(lines.at(-1)).toBe(`schema version ${SCHEMA_VERSION}: migrated`);

    const store = api.deps.store;
    const stored = await new SchemaRecords(store.control).read();
    expect([stored.version, stored.applied.map((a) => a.version)]).toEqual([SCHEMA_VERSION, MIGRATIONS.map((m) => m.version)]);
    const entities = store.database(t.db).collection('entity');
    const documents = await entities.find().toArray();
    const typed = documents.flatMap((d) => Object.entries(d).filter(([name, v]) => !name.startsWith('_') && Array.isArray(v) && v.some((x) => 'type' in x)));
    expect(typed).toEqual([]);
    expect((await entities.indexes()).length).toBeGreaterThan(1);
    expect((await store.control.collection('api_keys').indexes()).length).toBeGreaterThan(1);
  });

  it('after: the API serves again (the gate re-reads), the data reads as before; the worker runs the held job', async () => {
    await eventually(() => readyz(apiUrl), (r) => r.status === 200);
    const read = await fetch(`${apiUrl}/api/${t.db}/entity/${entityId}`, { headers: { Authorization: t.owner.auth } });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(before);

    await eventually(() => readyz(workerUrl), (r) => r.status === 200);
    await eventually(rebuildState, (state) => state === 'completed');
  }, 90_000);

  it('a second run is a no-op', async () => {
    const again = await runAdmin(['migrate'], env);
    expect([again.code, again.stderr, again.stdout]).toEqual([0, '', `schema at version ${SCHEMA_VERSION}: nothing to migrate\nschema version ${SCHEMA_VERSION}: current\n`]);
    const status = await runAdmin(['migrate', '--status', '--json'], env);
    expect(JSON.parse(status.stdout)).toEqual(
      expect.objectContaining({ stored: SCHEMA_VERSION, needed: SCHEMA_VERSION, pending: [], verdict: { serve: true, state: 'current' } }),
    );
  });
});
