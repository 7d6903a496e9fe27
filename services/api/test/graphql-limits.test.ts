import { getIntrospectionQuery } from 'graphql';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';
import { graphqlAs } from './graphql-client';

/** issue 17: depth, cost and aliases are bounded; hostile documents are refused, never a 500. */
describe('GraphQL limits and hostile documents', () => {
  let api: TestApi;
  let t: TestTenant;
  let gql: ReturnType<typeof graphqlAs>;
  let entity: string;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    gql = graphqlAs(t);
    const book = await t.defineType('book', [{ name: 'title', type: 'string' }]);
    entity = (await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'x' }])).body._id;
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const post = (body: unknown) => request(api.app).post(`/api/${t.db}/graphql`).set('Authorization', t.owner.auth).send(body as object);
  // supertest parses application/json and problem+json, not application/graphql-response+json.
  const bodyOf = (res: request.Response) => (res.text && !res.headers['content-type']?.includes('problem') ? JSON.parse(res.text) : res.body);
  const limitOf = (answer: { errors?: { extensions?: { limit?: string; code?: string } }[] }) => answer.errors?.map((e) => [e.extensions?.code, e.extensions?.limit]);

  it('refuses a query nested deeper than 10 levels, fragments included, with a clear error', async () => {
    const nested = (depth: number) => `query($id: ID!) { entity(id: $id) { ${'_parent { '.repeat(depth)}_id${' }'.repeat(depth)} } }`;
    expect((await gql(nested(8), { id: entity })).errors).toBeUndefined();
    const deep = await gql(nested(12), { id: entity });
    expect(limitOf(deep)).toEqual([['invalid', 'depth']]);
    expect(deep.errors![0]!.message).toMatch(/deeper than 10/);
    expect(deep.status).toBeLessThan(500);
    const viaFragments = await gql(
      `query($id: ID!) { entity(id: $id) { ...A } } fragment A on Entity { _parent { ...B } } fragment B on Entity { _parent { _parent { _parent { _parent { _parent { _parent { _parent { _parent { _parent { _parent { _id } } } } } } } } } } }`,
      { id: entity },
    );
    expect(limitOf(viaFragments)).toEqual([['invalid', 'depth']]);
  });

  it('refuses a query costing more than 20000 (pages times selections) with a clear error', async () => {
    const costly = await gql(`{ bookList(limit: 1000) { entities { _referrers(limit: 1000) { _id } } } }`);
    expect(limitOf(costly)).toEqual([['invalid', 'complexity']]);
    expect(costly.errors![0]!.message).toMatch(/costs \d+, more than 20000/);
    // The page size may come in a variable: it is counted all the same.
    const viaVariable = await gql(`query($n: Int) { bookList(limit: $n) { entities { _children(limit: $n) { _id } } } }`, { n: 1000 });
    expect(limitOf(viaVariable)).toEqual([['invalid', 'complexity']]);
    expect((await gql(`{ bookList(limit: 100) { entities { _id _referrers(limit: 20) { _id } } } }`)).errors).toBeUndefined();
  });

  it('refuses more than 30 aliases; thousands of them are refused before they run', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: bookList { count }`).join(' ')} }`;
    expect((await gql(aliases(30))).errors).toBeUndefined();
    expect(limitOf(await gql(aliases(31)))).toEqual([['invalid', 'aliases']]);
    const thousands = await post({ query: `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}:__typename`).join(' ')} }` });
    // Without an Accept header graphql-http answers application/json: a refusal is a 200 with errors (GraphQL over HTTP).
    expect(thousands.status).toBe(200);
    expect(bodyOf(thousands).data).toBeUndefined();
    expect(JSON.stringify(bodyOf(thousands).errors)).toMatch(/more than 30 aliases/);
    const tooLong = await post({ query: `{ ${Array.from({ length: 5000 }, (_, i) => `a${i}: __typename`).join(' ')} }` });
    expect(tooLong.status).toBe(400);
    expect(tooLong.headers['content-type']).toMatch(/problem\+json/);
  });

  it('refuses hostile documents without a 500: deep brackets, a huge string literal, a huge variable, a huge body, fragment cycles, garbage', async () => {
    const answers = await Promise.all([
      post({ query: `${'{ entity(id: "x") '.repeat(3000)}` }),
      post({ query: `{ ${'{'.repeat(10_000)} }` }),
      post({ query: `{ bookList(q: "${'x'.repeat(1_000_000)}") { count } }` }),
      post({ query: 'query($q: String) { bookList(q: $q) { count } }', variables: { q: Array.from({ length: 100_000 }, (_, i) => `w${i}`).join(' ') } }),
      post({ query: 'query($f: BookFilter) { bookList(filter: $f) { count } }', variables: { f: { title: { in: Array.from({ length: 5000 }, (_, i) => `t${i}`) } } } }),
      post({ query: 'query($f: BookFilter) { bookList(filter: $f) { count } }', variables: { f: { title: { regex: `/${'(a+)+'.repeat(200)}/` } } } }),
      post({ query: `{ __typename }`, variables: { x: 'y'.repeat(20_000_000) } }),
      post({ query: 'query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }' }),
      post({ query: '}}}{{{' }),
      post({ query: '{ entity(id: true) { _id } }' }),
      post({ query: 12 }),
    ]);
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBeGreaterThanOrEqual(200);
      expect(answer.status).toBeLessThan(500);
      const body = bodyOf(answer);
      const errors = body.errors ?? (body.title ? [body] : []);
      expect({ i, refused: errors.length > 0 }).toEqual({ i, refused: true });
    }
  });

  it('a list page is bounded like REST: limit 0 to 1000', async () => {
    const answer = await gql(`{ bookList(limit: 5000) { count } }`);
    expect(answer.errors?.[0]?.extensions?.code).toBe('invalid');
  });

  it('introspection is on: the schema of the caller\'s database is public to its callers', async () => {
    const answer = await graphqlAs(t, null)(`{ __schema { queryType { name } mutationType { name } } }`);
    expect(answer.data).toEqual({ __schema: { queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } } });
    // The query GraphQL tools send (GraphiQL, code generators), deeper than the depth limit, passes.
    const full = await graphqlAs(t, null)(getIntrospectionQuery());
    expect(full.errors).toBeUndefined();
    expect(full.data!.__schema.types.map((type: { name: string }) => type.name)).toEqual(expect.arrayContaining(['Book', 'BookFilter', 'Entity']));
  });
});

describe('GraphQL shares the REST rate limit', () => {
  let api: TestApi;
  beforeAll(() => {
    api = testApi({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
  });
  afterAll(() => api.close());

  it('counts GraphQL and REST requests of one client together, and answers 429 as a problem', async () => {
    expect((await request(api.app).get('/api/no_such_db/entity/000000000000000000000000')).status).toBe(404);
    expect((await request(api.app).post('/api/no_such_db/graphql').send({ query: '{ __typename }' })).status).toBe(404);
    expect((await request(api.app).get('/api/no_such_db/graphql').query({ query: '{ __typename }' })).status).toBe(404);
    const limited = await request(api.app).post('/api/no_such_db/graphql').send({ query: '{ __typename }' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ status: 429, type: 'urn:entia:problem:rate-limited' });
  });
});
