import { SCHEMA_VERSION, SchemaRecords } from '@entia/store';
import request from 'supertest';
import { runAdmin, runAdminHere } from './admin-cli';
import { eventually } from './eventually';
import { WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { sharedWith, testApi, type TestApi } from './support';
import { stackConnected } from '../../../libs/store/test/stack-reach';

/**
 * The other `entia-admin` commands as an operator runs them (issue 22): a new installation is born
 * at the current schema version, `databases` lists counts and sizes, `reset-key` replaces an
 * owner's key (the old one's tokens stop), `rebuild` schedules the worker's rebuild (and waits).
 */
describe('entia-admin create-database, databases, reset-key, rebuild', () => {
  let api: TestApi;
  let env: Record<string, string>;
  let worker: Spawned | undefined;
  const name = `adm_${Date.now().toString(36)}`;
  let created: { db: string; personId: string; apiKey: string; types: Record<string, string> };
  let objectKey: string;
  /** The owner's key, once reset-key has replaced the first one. */
  let ownerKey: string;

  beforeAll(async () => {
    // Key liveness looked up on every request: a revoked key is refused at once.
    api = testApi({ KEY_RECHECK_MS: '0' });
    env = sharedWith(api);
    await stackConnected(api.deps.store);
  });
  afterAll(async () => {
    await worker?.stop();
    if (objectKey) await api.deps.objects.remove(objectKey);
    await api.deps.store.database(name).dropDatabase();
    await api.deps.store.control.dropDatabase();
    await api.close();
  });

  const signIn = (key: string) => request(api.app).get('/api/auth').set('Authorization', `Bearer ${key}`);

  it('a new installation (no database) is born at the current schema version by its first create-database', async () => {
    const schema = new SchemaRecords(api.deps.store.control);
    expect((await schema.read()).fresh).toBe(true);
    expect(JSON.parse((await runAdmin(['migrate', '--status', '--json'], env)).stdout)).toEqual(
      expect.objectContaining({ stored: null, fresh: true, needed: SCHEMA_VERSION, verdict: { serve: true, state: 'fresh' } }),
    );

    const run = await runAdmin(['create-database', name, '--json'], env);
    expect([run.code, run.stderr]).toEqual([0, '']);
    created = JSON.parse(run.stdout);
    const stored = await schema.read();
    expect([stored.fresh, stored.version]).toEqual([false, SCHEMA_VERSION]);
    const again = await runAdminHere(['migrate'], env);
    expect([again.code, again.stdout]).toEqual([0, `schema at version ${SCHEMA_VERSION}: nothing to migrate\nschema version ${SCHEMA_VERSION}: current\n`]);
    // Its indexes were made with it.
    expect((await api.deps.store.database(name).collection('entity').indexes()).length).toBeGreaterThan(1);
  });

  it('databases lists each database with its counts, storage size and file objects', async () => {
    objectKey = `${name}/some-file`;
    await api.deps.objects.write(objectKey, Buffer.from('0123456789'), 'text/plain');
    const entities = await api.deps.store.database(name).collection('entity').countDocuments();
    const history = await api.deps.store.database(name).collection('history').countDocuments();

    const json = await runAdmin(['databases', '--json'], env);
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(JSON.parse(json.stdout)).toEqual([
      { name, createdAt: expect.any(String), entities, history, storageBytes: expect.any(Number), objects: { count: 1, bytes: 10 } },
    ]);
    expect(entities).toBeGreaterThan(0);

    const table = await runAdminHere(['databases'], env);
    const [head, row, ...rest] = table.stdout.trimEnd().split('\n');
    expect(head).toMatch(/^database +entities +history +storage +objects +object bytes +created +state$/);
    expect(row).toMatch(new RegExp(`^${name} +${entities} +${history} +\\d+(\\.\\d)? (B|KiB|MiB|GiB) +1 +10 B +\\S+ +served$`));
    expect(rest).toEqual([]);
  });

  it('reset-key prints a new key once; tokens of the old key stop working, the new key signs in', async () => {
    const before = await signIn(created.apiKey);
    expect(before.status).toBe(200);
    const oldToken = `Bearer ${before.body.token}`;
    expect((await request(api.app).get(`/api/${name}/entity/${created.personId}`).set('Authorization', oldToken)).status).toBe(200);

    const run = await runAdmin(['reset-key', name], env);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const match = /^Revoked 1 API key\(s\) of person ([0-9a-f]{24}) in "([a-z0-9_]+)"\.\nNew API key \(shown once, keep it safe\): ([A-Za-z0-9_-]{43})\n$/.exec(run.stdout);
    expect(match?.slice(1, 3)).toEqual([created.personId, name]);
    const newKey = match![3]!;
    ownerKey = newKey;

    expect((await request(api.app).get(`/api/${name}/entity/${created.personId}`).set('Authorization', oldToken)).status).toBe(401);
    expect((await signIn(created.apiKey)).status).toBe(401);
    const after = await signIn(newKey);
    expect(after.status).toBe(200);
    const person = await request(api.app).get(`/api/${name}/entity/${created.personId}`).set('Authorization', `Bearer ${after.body.token}`);
    // One key left, shown masked: the plaintext was printed once and is kept nowhere.
    expect(person.body.entity._api_key).toEqual([expect.objectContaining({ string: '***' })]);
    expect(JSON.stringify(await api.deps.store.database(name).collection('entity').find().toArray())).not.toContain(newKey);
  });

  it('reset-key --person replaces another person\'s keys', async () => {
    const owner = `Bearer ${(await signIn(ownerKey)).body.token}`;
    const person = await request(api.app)
      .post(`/api/${name}/entity`)
      .set('Authorization', owner)
      .send([{ type: '_type', reference: created.types.person }, { type: 'name', string: 'Grace' }]);
    expect(person.status).toBe(201);
    const keyed = await request(api.app).post(`/api/${name}/entity/${person.body._id}`).set('Authorization', owner).send([{ type: '_api_key' }]);
    const graceKey = keyed.body.properties.find((value: { type: string }) => value.type === '_api_key').string as string;
    expect((await signIn(graceKey)).status).toBe(200);

    const run = await runAdminHere(['reset-key', name, '--person', person.body._id, '--json'], env);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const reset = JSON.parse(run.stdout);
    expect(reset).toEqual({ db: name, person: person.body._id, revoked: 1, apiKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect((await signIn(graceKey)).status).toBe(401);
    const signed = await signIn(reset.apiKey);
    expect([signed.status, signed.body.accounts[0].user._id]).toEqual([200, person.body._id]);
  });

  it('reset-key --person refuses an id that is no person of the database', async () => {
    const run = await runAdminHere(['reset-key', name, '--person', created.types.entity!], env);
    expect([run.code, run.stderr]).toEqual([1, `entia-admin reset-key: no person ${created.types.entity} in database "${name}"\n`]);
    const bad = await runAdminHere(['reset-key', name, '--person', '{"$ne":1}'], env);
    expect([bad.code, bad.stderr]).toEqual([1, `entia-admin reset-key: "{\\"$ne\\":1}" is not a person id (24 hexadecimal characters)\n`]);
  });

  it('rebuild schedules the worker\'s rebuild; --wait follows it to its end', async () => {
    const scheduled = await runAdminHere(['rebuild', name], env);
    expect([scheduled.code, scheduled.stderr]).toEqual([0, '']);
    expect(scheduled.stdout).toMatch(new RegExp(`^Rebuild scheduled: rebuild-${name}-[0-9a-f]{32}\\n$`));

    const port = await freePort();
    worker = spawnService(WORKER_MAIN, stackEnv({ ...env, WORKER_PORT: String(port) }));
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, (status) => status === 200, 20_000);
    const entities = await api.deps.store.database(name).collection('entity').countDocuments();
    const waited = await runAdmin(['rebuild', name, '--wait'], env);
    expect([waited.code, waited.stderr]).toEqual([0, '']);
    const lines = waited.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Rebuild scheduled: rebuild-${name}-[0-9a-f]{32}$`));
    expect(lines.at(-1)).toBe(`completed: ${entities} of ${entities} entities`);
    // The first one, scheduled before the worker ran, is done too.
    const first = /rebuild-\S+/.exec(scheduled.stdout)![0];
    const token = `Bearer ${(await signIn(ownerKey)).body.token}`;
    await eventually(
      async () => (await request(api.app).get(`/api/${name}/aggregate/${first}`).set('Authorization', token)).body.state as string,
      (state) => state === 'completed',
    );
  }, 90_000);
});
