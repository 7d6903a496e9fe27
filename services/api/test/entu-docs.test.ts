import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { listening, testApi, type Listening, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

const run = promisify(execFile);

/** The `sh` blocks of a document, in order. */
function shellBlocks(file: string): string[] {
  const text = readFileSync(join(__dirname, '../../../docs', file), 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

// docs/entu.md's menu set-up, run as a user pastes it (bash, curl, node) after the README's
// walkthrough, against a real API: the side menu Entu's client asks for then answers it.
describe('docs/entu.md: the menu Entu’s client expects', () => {
  let api: TestApi;
  let server: Listening;
  let t: TestTenant;

  beforeAll(async () => {
    api = testApi();
    server = await listening(api.app);
    t = await testTenant(api);
  });
  afterAll(async () => {
    await t.close();
    await server.close();
    await api.close();
  });

  it('makes a menu type and an entry the client’s side menu shows', async () => {
    const book = await t.defineType('book', [{ name: 'title', type: 'string' }]);
    const [snippet] = shellBlocks('entu.md');
    // What the README's walkthrough set before it.
    const walkthrough = 'H=(-H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json")\n';
    const env = { PATH: process.env.PATH ?? '', TOKEN: t.owner.token, API: `${server.url}/api/${t.db}`, ENTITY: t.types.entity, PROPERTY: t.types.property, BOOK: book };
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', walkthrough + snippet!], { env });
    expect(JSON.parse(stdout)).toMatchObject({ _id: expect.any(String) });

    const menu = await request(api.app).get(`/api/${t.db}/entity?_type.string=menu&props=ordinal.number,group,name,query.string`).set('Authorization', t.owner.auth);
    expect(menu.body.entities).toEqual([
      {
        _id: expect.any(String),
        name: [expect.objectContaining({ string: 'Books' })],
        group: [expect.objectContaining({ string: 'Library' })],
        ordinal: [{ _id: expect.any(String), number: 1 }],
        query: [{ _id: expect.any(String), string: '_type.string=book&sort=title.string' }],
      },
    ]);
  });
});
