import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { stackEnv } from './processes';
import { listening, sharedWith, testApi, type Listening, type TestApi } from './support';

const run = promisify(execFile);
const ROOT = join(__dirname, '../../..');

/** The fenced block of `language` that follows `heading` in a document, as a user copies it. */
async function blockAfter(file: string, heading: string, language: string): Promise<string> {
  const text = await readFile(join(ROOT, file), 'utf8');
  const from = text.indexOf(heading);
  if (from < 0) throw new Error(`${file} has no "${heading}"`);
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(text.slice(from));
  if (!match) throw new Error(`${file} has no ${language} block after "${heading}"`);
  return match[1]!;
}

// The README's walkthroughs replayed from their own text (issue 35), as a newcomer pastes them:
// the curl one in bash, in a checkout whose `.stack/env` names a running stack (what `npm start`
// writes), then the SDK one — twice, as a newcomer who runs a quick start again would. The only
// change to the text is the API's address: the test's API listens on a free port, not on 3000.
describe('README walkthroughs, run from their own text', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let server: Listening;
  let checkout: string;
  let apiKey: string;

  const addressed = (text: string) => text.replaceAll('localhost:3000', server.url.replace('http://', ''));

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    server = await listening(api.app);
    // A checkout of this repository (its built code, by link) with the running stack's settings in `.stack/env`.
    checkout = await mkdtemp(join(tmpdir(), 'entia-walkthrough-'));
    for (const part of ['package.json', '.node-version', 'node_modules', 'services', 'libs', 'tools']) await symlink(join(ROOT, part), join(checkout, part));
    await mkdir(join(checkout, '.stack'));
    const env = stackEnv(sharedWith(api));
    await writeFile(join(checkout, '.stack/env'), Object.entries(env).map(([name, value]) => `${name}=${value}\n`).join(''), { mode: 0o600 });
  });
  afterAll(async () => {
    await server?.close();
    await api?.close();
    if (checkout) await rm(checkout, { recursive: true, force: true });
  });

  it('the curl walkthrough (bash), continued by GraphQL and a webhook: database, type, a book changed and deleted, a query, a mutation, a webhook', async () => {
    const blocks = await Promise.all([
      blockAfter('README.md', '### Walkthrough with curl', 'bash'),
      blockAfter('README.md', '### GraphQL', 'bash'),
      blockAfter('README.md', '### Webhooks', 'bash'),
    ]);
    const walkthrough = addressed(blocks.join('\n'));
    // The stack's state is this checkout's (the linked tools would look beside the real repository).
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ENTIA_STACK_DIR: join(checkout, '.stack') };
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', walkthrough], { cwd: checkout, env });
    // The walkthrough prints each answer: the definitions, the book as read, changed and deleted.
    expect(stdout).toContain('"string":"Dune"');
    expect(stdout).toContain('"string":"Dune Messiah"');
    expect(stdout).toContain('"deleted":true');
    // GraphQL: the query (the book is gone: none), the mutation's new book; then the webhook made.
    expect(stdout).toContain('{"data":{"bookList":{"count":0,"entities":[]}}}');
    expect(stdout).toMatch(/\{"data":\{"create":\{"_id":"[0-9a-f]{24}"\}\}\}/);
    expect(stdout).toContain('"string":"books to the shop"');

    const created = JSON.parse(await readFile(join(checkout, '.stack/demo.json'), 'utf8'));
    apiKey = created.apiKey;
    const token = (await request(api.app).get('/api/auth').set('Authorization', `Bearer ${apiKey}`)).body.token;
    const books = await request(api.app).get('/api/demo/entity').query({ '_type.string': 'book' }).set('Authorization', `Bearer ${token}`);
    // The one made by the GraphQL mutation; the walkthrough's own was deleted.
    expect([books.status, books.body.count]).toEqual([200, 1]);
  });

  /** Runs a snippet of TypeScript as a file of `project` (Node strips its types), twice; then there is one type "book". */
  async function twice(project: string, snippet: string): Promise<void> {
    const script = join(project, 'quick-start.mts');
    await writeFile(script, addressed(snippet));
    for (let time = 0; time < 2; time++) {
      const { stderr } = await run(process.execPath, [script], { cwd: project, env: { PATH: process.env.PATH ?? '', ENTIA_API_KEY: apiKey } });
      expect(stderr).not.toMatch(/Error/);
    }
    const token = (await request(api.app).get('/api/auth').set('Authorization', `Bearer ${apiKey}`)).body.token;
    const types = await request(api.app).get('/api/demo/schema').set('Authorization', `Bearer ${token}`);
    expect(types.body.types.filter((type: { name: string }) => type.name === 'book')).toHaveLength(1);
  }

  it('the SDK walkthrough of README.md runs, and runs again: one type "book"', async () => {
    await twice(checkout, await blockAfter('README.md', '### Walkthrough with the TypeScript SDK', 'ts'));
  });

  it('the SDK installs into a project as its README says, and its quick start runs twice', async () => {
    // The clone is this repository (built already); `~` is a scratch home with an empty project.
    const home = join(checkout, 'home');
    const project = join(home, 'my-project');
    await mkdir(project, { recursive: true });
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'my-project', private: true, type: 'module' }));
    const install = await blockAfter('libs/client/README.md', 'install the tarball in your project', 'sh');
    const env = { PATH: process.env.PATH ?? '', HOME: home, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
    await run('bash', ['-euo', 'pipefail', '-c', install], { cwd: ROOT, env, maxBuffer: 16 << 20 });
    // Installed from the tarball, not linked to this workspace.
    expect(JSON.parse(await readFile(join(project, 'package.json'), 'utf8')).dependencies).toEqual({ '@entia/client': expect.stringMatching(/^file:.*entia-client-\d+\.\d+\.\d+\.tgz$/) });
    await twice(project, await blockAfter('libs/client/README.md', '## Quick start', 'ts'));

    // The README's GraphQL call, as it is written there, answers data and no errors.
    const readme = await readFile(join(ROOT, 'libs/client/README.md'), 'utf8');
    const query = /await db\.graphql\('([^']+)'\)/.exec(readme)![1]!;
    const quickStart = await blockAfter('libs/client/README.md', '## Quick start', 'ts');
    const setUp = quickStart.split('\n').filter((line) => line.startsWith('import') || line.startsWith('const db')).join('\n');
    await writeFile(join(project, 'graphql.mts'), addressed(`${setUp}\nconsole.log(JSON.stringify(await db.graphql(${JSON.stringify(query)})));\n`));
    const { stdout } = await run(process.execPath, [join(project, 'graphql.mts')], { cwd: project, env: { PATH: process.env.PATH ?? '', ENTIA_API_KEY: apiKey } });
    const answer = JSON.parse(stdout);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.bookList.count).toEqual(expect.any(Number));
  });

  it('the SDK would publish as it is packed (npm publish --dry-run)', async () => {
    // Pointed at no registry: a dry run packs and checks the package, and sends nothing anywhere.
    const { stdout, stderr } = await run('npm', ['publish', '--dry-run', '--registry=http://127.0.0.1:9/', '--fetch-retries=0'], { cwd: join(ROOT, 'libs/client') });
    expect(`${stdout}${stderr}`).toMatch(/\+ @entia\/client@\d+\.\d+\.\d+/);
  });
});
