import { ADMIN_CLI, runAdmin, runAdminHere } from './admin-cli';
import { TEST_CONTROL_DB, testApi, type TestApi } from './support';

/**
 * `entia-admin`'s contract (services/api/src/cli/admin/command.ts): 0 done, 1 failed with one
 * clear line, 2 usage with the usage printed; hostile names are refused before any query, nothing
 * is written, and no credential of the configuration is ever printed. A few cases run the built
 * file as its own process (exit codes as a shell sees them); the rest call it in this process.
 */
describe('entia-admin: usage and bad input', () => {
  let api: TestApi;
  const env = { MONGODB_CONTROL_DB: TEST_CONTROL_DB };
  const COMMANDS = ['create-database', 'databases', 'delete-database', 'reset-key', 'rebuild', 'migrate'];

  beforeAll(() => {
    api = testApi();
  });
  afterAll(async () => {
    await api.deps.store.control.dropDatabase();
    await api.close();
  });

  it(`${ADMIN_CLI.replace(/.*\/services/, 'services')} --help lists every command, one line each, exit 0; each command's --help its usage`, async () => {
    const help = await runAdmin(['--help'], env);
    expect([help.code, help.stderr]).toEqual([0, '']);
    expect(help.stdout).toMatch(/^usage: entia-admin <command> \[options\]/);
    for (const command of COMMANDS) expect(help.stdout).toMatch(new RegExp(`^  ${command} +\\S.+$`, 'm'));
    for (const command of COMMANDS) {
      const own = await runAdminHere([command, '--help'], env);
      expect([command, own.code, own.stderr]).toEqual([command, 0, '']);
      expect(own.stdout).toMatch(new RegExp(`^usage: entia-admin ${command}\\b`));
    }
  });

  it('an unknown command, as its own process: usage on stderr, exit 2', async () => {
    const run = await runAdmin(['drop-everything'], env);
    expect([run.code, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(/^entia-admin: unknown command "drop-everything"\nusage: entia-admin <command>/);
  });

  it.each<[string, string[], RegExp]>([
    ['no command', [], /^entia-admin: no command given\nusage: entia-admin <command>/],
    ['an unknown flag', ['migrate', '--force'], /^entia-admin migrate: Unknown option '--force'.*\nusage: entia-admin migrate/],
    ['a missing argument', ['reset-key'], /^entia-admin reset-key: missing the database name\nusage: entia-admin reset-key <db>/],
    ['an extra argument', ['databases', 'extra'], /^entia-admin databases: unexpected argument "extra"\nusage: entia-admin databases/],
    ['a flag without its value', ['reset-key', 'abc', '--person'], /^entia-admin reset-key: Option '--person <value>' argument missing\nusage:/],
    ['delete-database without --yes where nobody can confirm', ['delete-database', 'abc'], /^entia-admin delete-database: not a terminal: pass --yes/],
  ])('%s: usage on stderr, exit 2', async (_, args, message) => {
    const run = await runAdminHere(args, env);
    expect([run.code, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toMatch(message);
  });

  const hostile = ['../x', '$x', '__proto__', 'a'.repeat(100), 'admin', TEST_CONTROL_DB, 'x\u001b[2Jy'];
  const refusal = (command: string) => new RegExp(`^entia-admin ${command}: ".*" is (not a database name|a reserved name, not a tenant database)[^\\n]*\\n$`);

  it('refuses a hostile database name as its own process: one line, exit 1', async () => {
    const run = await runAdmin(['delete-database', '$x', '--yes'], env);
    expect([run.code, run.stdout, run.stderr]).toEqual([1, '', 'entia-admin delete-database: "$x" is not a database name ([a-z][a-z0-9_]{2,62})\n']);
  });

  it.each(['delete-database', 'reset-key', 'rebuild'])('%s refuses hostile database names with one line, exit 1, nothing written', async (command) => {
    const registered = (await api.deps.store.registry.allDatabases()).length;
    for (const name of hostile) {
      const run = await runAdminHere(command === 'delete-database' ? [command, name, '--yes'] : [command, name], env);
      expect([name, run.code, run.stdout]).toEqual([name, 1, '']);
      expect(run.stderr).toMatch(refusal(command));
      // Quoted as JSON: an escape sequence in a name reaches the terminal as text.
      expect(run.stderr).not.toContain('\u001b');
    }
    expect((await api.deps.store.registry.allDatabases()).length).toBe(registered);
    const names = (await api.deps.store.control.admin().listDatabases({ nameOnly: true })).databases.map((db) => db.name);
    expect(names.filter((name) => hostile.includes(name) && name !== 'admin' && name !== TEST_CONTROL_DB)).toEqual([]);
  });

  it.each([
    ['reset-key', 'nosuchdb'],
    ['rebuild', 'nosuchdb'],
    ['delete-database', 'nosuchdb', '--yes'],
  ])('%s of a database that does not exist: one line, exit 1', async (...args) => {
    const run = await runAdminHere(args, env);
    expect([run.code, run.stdout, run.stderr]).toEqual([1, '', `entia-admin ${args[0]}: no database "nosuchdb"\n`]);
  });

  it('a bad setting is one line naming it; a MongoDB that never answers is waited for, then one line without its password', async () => {
    const bad = await runAdminHere(['databases'], { ...env, REDIS_URL: 'http://nope' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^entia-admin databases: configuration: .*REDIS_URL[^\n]*\n$/);

    const unreachable = await runAdmin(['migrate', '--status'], {
      ...env,
      MONGODB_URL: 'mongodb://entia:hunter2-secret@127.0.0.1:1/?serverSelectionTimeoutMS=500',
      DEPENDENCY_TIMEOUT_MS: '500',
      ADMIN_WAIT_MS: '3000',
    });
    expect(unreachable.code).toBe(1);
    // What it waits for, once, then why it gave up.
    expect(unreachable.stderr).toMatch(
      /^entia-admin: waiting for MongoDB \(connect ECONNREFUSED 127\.0\.0\.1:1\) to answer, up to 3 s \(ADMIN_WAIT_MS\)\nentia-admin migrate: did not answer within 3 s: MongoDB \(connect ECONNREFUSED 127\.0\.0\.1:1\)\n$/,
    );
    expect(unreachable.stderr + unreachable.stdout).not.toContain('hunter2');
  });
});
