import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { stackEnv } from './processes';
import { TEST_CONTROL_DB, testApi, type TestApi } from './support';

const run = promisify(execFile);
const CLI = join(__dirname, '../dist/cli/create-database.js');

/** The command as an operator runs it: the built file, the service's environment (this file's control database). */
async function createDatabase(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: stackEnv({ MONGODB_CONTROL_DB: TEST_CONTROL_DB }) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('create-database (SPEC §4, §12)', () => {
  let api: TestApi;
  beforeAll(() => {
    api = testApi();
  });
  afterAll(() => api.close());

  const name = () => `cli_${randomBytes(4).toString('hex')}`;

  it('--json prints {db, personId, apiKey, types}; the key signs in as the owner', async () => {
    const db = name();
    const result = await createDatabase(db, '--owner-name', 'Ada Lovelace', '--json');
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created).toEqual({
      db,
      personId: expect.stringMatching(/^[0-9a-f]{24}$/),
      apiKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      types: { entity: expect.any(String), property: expect.any(String), person: expect.any(String), database: expect.any(String), webhook: expect.any(String) },
    });

    const auth = await request(api.app).get('/api/auth').set('Authorization', `Bearer ${created.apiKey}`);
    expect(auth.status).toBe(200);
    expect(auth.body.accounts).toEqual([{ _id: db, name: db, user: { _id: created.personId, name: 'Ada Lovelace' } }]);

    const token = `Bearer ${auth.body.token}`;
    const person = await request(api.app).get(`/api/${db}/entity/${created.personId}`).set('Authorization', token);
    expect(person.body.entity._type[0].reference).toBe(created.types.person);
    expect(person.body.entity._api_key[0].string).toBe('***');
    const entityType = await request(api.app).get(`/api/${db}/entity/${created.types.entity}`).set('Authorization', token);
    expect(entityType.body.entity._type[0].reference).toBe(created.types.entity);
    expect(entityType.body.entity.name[0].string).toBe('entity');
  });

  it('prints the key once in plain text without --json', async () => {
    const result = await createDatabase(name());
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^API key \(shown once, keep it safe\): [A-Za-z0-9_-]{43}$/m);
  });

  it('refuses an existing database with one line, and keeps it intact', async () => {
    const db = name();
    const first = JSON.parse((await createDatabase(db, '--json')).stdout);
    const again = await createDatabase(db, '--json');
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`entia-admin create-database: database "${db}" already exists\n`);
    expect((await request(api.app).get('/api/auth').set('Authorization', `Bearer ${first.apiKey}`)).status).toBe(200);
  });

  it.each(['ab', 'Upper', 'admin', 'auth', '1abc', 'a-b-c'])('refuses the name %j', async (bad) => {
    const result = await createDatabase(bad);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^entia-admin create-database: ".*" is not a valid database name/);
  });

  it('explains its usage when the name is missing', async () => {
    const result = await createDatabase();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^entia-admin create-database: missing the database name\nusage: entia-admin create-database <name>/);
  });
});
