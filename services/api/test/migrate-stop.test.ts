import { SCHEMA_VERSION, SchemaRecords } from '@entia/store';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { ADMIN_CLI, makeOldSchema, runAdmin } from './admin-cli';
import { eventually } from './eventually';
import { stackEnv } from './processes';
import { sharedWith, testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * `entia-admin migrate` sent SIGTERM (a Job's pod on a draining node, or Ctrl-C) stops at the next
 * document and gives its lock back: the next run starts at once instead of being refused until the
 * lock expires (5 minutes). The run is held on an entity's write lease, taken here, so the signal
 * deterministically arrives while it works.
 */
describe('entia-admin migrate stopped by SIGTERM', () => {
  let api: TestApi;
  let t: TestTenant;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    await makeOldSchema(api.deps.store, t.db);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    if (t) await api.deps.store.database(t.db).dropDatabase();
    await api?.deps.store.control.dropDatabase();
    await api?.close();
  });

  it('stops with exit 1 and the lock released; the next run finishes the migration', async () => {
    const env = { ...sharedWith(api), WRITE_WAIT_MS: '60000' };
    const [first] = await api.deps.store.database(t.db).collection('entity').find({}, { sort: { _id: 1 }, limit: 1 }).toArray();
    let stdout = '';
    let stderr = '';
    let exited!: Promise<unknown[]>;
    await api.deps.leases.hold(`${t.db}/${String(first!._id)}`, async () => {
      const child = spawn(process.execPath, [ADMIN_CLI, 'migrate'], { env: { PATH: process.env.PATH ?? '', ...stackEnv(env) }, stdio: ['ignore', 'pipe', 'pipe'] });
      exited = once(child, 'exit');
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await eventually(async () => stdout, (text) => /migration 2 \(.*\): started/.test(text), 60_000);
      child.kill('SIGTERM');
      // Released only once it has taken the signal in: its next document is where it stops.
      await eventually(async () => stderr, (text) => text.includes('SIGTERM: stopping at the next document'), 30_000);
    });
    const [code] = await exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/entia-admin migrate: stopped by SIGTERM: the lock is released; run migrate again to finish/);
    const records = new SchemaRecords(api.deps.store.control);
    expect((await records.read()).version).toBe(1);
    expect(await api.deps.store.control.collection('schema').findOne({ _id: 'lock' as never })).toBeNull();

    const again = await runAdmin(['migrate'], env);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toMatch(new RegExp(`schema version ${SCHEMA_VERSION}: migrated`));
  }, 120_000);
});
