import { EntiaClient, EntiaError } from '@entia/client';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';
import { codesOf, graphqlAs } from './graphql-client';

/** issue 17: each mutation runs the REST write's use case, and refuses what it refuses, with the same kind. */
describe('GraphQL mutations', () => {
  let api: TestApi;
  let t: TestTenant;
  let gql: ReturnType<typeof graphqlAs>;
  let book: string;
  let reader: Person;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    gql = graphqlAs(t);
    reader = await t.newPerson('Reader');
    book = await t.defineType('book', [
      { name: 'title', type: 'string', mandatory: true },
      { name: 'pages', type: 'number' },
      { name: 'cover', type: 'file' },
    ]);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const CREATE = `mutation($values: [ValueInput!]!) { create(values: $values) { _id values { _id type string number upload { method url headers { name value } } } } }`;
  const readRest = (id: string, by: Person = t.owner) => request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth);

  async function created(values: object[]): Promise<string> {
    const answer = await gql(CREATE, { values });
    expect(answer.errors).toBeUndefined();
    return answer.data!.create._id;
  }

  it('create writes an entity REST then reads; a file value answers its upload target', async () => {
    const answer = await gql(CREATE, {
      values: [
        { type: '_type', reference: book },
        { type: 'title', string: 'Dune' },
        { type: 'cover', filename: 'dune.png', filesize: 10, filetype: 'image/png' },
        { type: '_sharing', string: 'domain' },
      ],
    });
    expect(answer.errors).toBeUndefined();
    const id = answer.data!.create._id;
    expect((await readRest(id)).body.entity.title[0].string).toBe('Dune');
    const cover = answer.data!.create.values.find((v: { type: string }) => v.type === 'cover');
    expect(cover.upload).toMatchObject({ method: 'PUT' });
    expect(cover.upload.headers.map((h: { name: string }) => h.name)).toContain('Content-Type');
  });

  it('create refuses what REST refuses: anonymous (unauthenticated), a missing mandatory value, an oversized value, two value fields (invalid)', async () => {
    const anonymous = graphqlAs(t, null);
    expect(codesOf(await anonymous(CREATE, { values: [{ type: '_type', reference: book }, { type: 'title', string: 'x' }] }))).toEqual(['unauthenticated']);
    const missing = await gql(CREATE, { values: [{ type: '_type', reference: book }, { type: 'pages', number: 1 }] });
    const rest = await t.create([{ type: '_type', reference: book }, { type: 'pages', number: 1 }]);
    expect(rest.status).toBe(400);
    expect(codesOf(missing)).toEqual(['invalid']);
    expect(codesOf(await gql(CREATE, { values: [{ type: '_type', reference: book }, { type: 'title', string: 'x'.repeat(200_000) }] }))).toEqual(['invalid']);
    expect(codesOf(await gql(CREATE, { values: [{ type: 'title', string: 'x', number: 1 }] }))).toEqual(['invalid']);
  });

  it('addValues adds and overwrites; another person without the right is refused (forbidden), an unreadable id is not-found', async () => {
    const id = await created([{ type: '_type', reference: book }, { type: 'title', string: 'Emma' }, { type: '_sharing', string: 'domain' }]);
    const add = `mutation($id: ID!, $values: [ValueInput!]!) { addValues(id: $id, values: $values) { _id values { _id type number string } } }`;
    const added = await gql(add, { id, values: [{ type: 'pages', number: 474 }] });
    expect(added.errors).toBeUndefined();
    expect(added.data!.addValues).toEqual({ _id: id, values: [{ _id: expect.any(String), type: 'pages', number: 474, string: null }] });
    const titleId = (await readRest(id)).body.entity.title[0]._id;
    // Values come in the order they were sent, as REST answers them.
    const both = await gql(add, { id, values: [{ type: 'title', _id: titleId, string: 'Emma!' }, { type: 'pages', number: 474 }] });
    expect(both.data!.addValues.values.map((v: { _id: string; type: string }) => [v.type, v.type === 'title' ? v._id : 'new'])).toEqual([['title', titleId], ['pages', 'new']]);
    const entity = (await readRest(id)).body.entity;
    expect([entity.title[0].string, entity.pages[0].number]).toEqual(['Emma!', 474]);
    expect(codesOf(await graphqlAs(t, reader)(add, { id, values: [{ type: 'pages', number: 1 }] }))).toEqual(['forbidden']);
    const privateOne = await created([{ type: '_type', reference: book }, { type: 'title', string: 'Private' }]);
    expect(codesOf(await graphqlAs(t, reader)(add, { id: privateOne, values: [{ type: 'pages', number: 1 }] }))).toEqual(['not-found']);
    expect(codesOf(await gql(add, { id: 'not-an-id', values: [{ type: 'pages', number: 1 }] }))).toEqual(['not-found']);
  });

  it('deleteValue and deleteEntity delete; a reader may not delete (forbidden), an anonymous caller must sign in (unauthenticated); a deleted entity reads as null', async () => {
    const id = await created([{ type: '_type', reference: book }, { type: 'title', string: 'Gone' }, { type: 'pages', number: 3 }, { type: '_sharing', string: 'domain' }]);
    const pagesId = (await readRest(id)).body.entity.pages[0]._id;
    expect(codesOf(await graphqlAs(t, reader)(`mutation($id: ID!) { deleteEntity(id: $id) }`, { id }))).toEqual(['forbidden']);
    expect(codesOf(await graphqlAs(t, reader)(`mutation($id: ID!) { deleteValue(id: $id) }`, { id: pagesId }))).toEqual(['forbidden']);
    expect(codesOf(await graphqlAs(t, null)(`mutation($id: ID!) { deleteValue(id: $id) }`, { id: pagesId }))).toEqual(['unauthenticated']);
    expect((await gql(`mutation($id: ID!) { deleteValue(id: $id) }`, { id: pagesId })).data).toEqual({ deleteValue: true });
    expect((await readRest(id)).body.entity.pages).toBeUndefined();
    expect((await gql(`mutation($id: ID!) { deleteEntity(id: $id) }`, { id })).data).toEqual({ deleteEntity: true });
    expect((await gql(`query($id: ID!) { entity(id: $id) { _id } }`, { id })).data).toEqual({ entity: null });
    expect(codesOf(await gql(`mutation($id: ID!) { deleteEntity(id: $id) }`, { id }))).toEqual(['not-found']);
  });

  it('duplicate makes copies owned by the caller; a count over the bound is invalid', async () => {
    const id = await created([{ type: '_type', reference: book }, { type: 'title', string: 'Twin' }, { type: 'pages', number: 7 }]);
    const answer = await gql(`mutation($id: ID!) { duplicate(id: $id, count: 2, ignoredProperties: ["pages"]) { _id } }`, { id });
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.duplicate).toHaveLength(2);
    const copy = (await readRest(answer.data!.duplicate[0]._id)).body.entity;
    expect([copy.title[0].string, copy.pages]).toEqual(['Twin', undefined]);
    expect(codesOf(await gql(`mutation($id: ID!) { duplicate(id: $id, count: 1000) { _id } }`, { id }))).toEqual(['invalid']);
    expect(codesOf(await graphqlAs(t, null)(`mutation($id: ID!) { duplicate(id: $id) { _id } }`, { id }))).toEqual(['unauthenticated']);
  });

  it('aggregate recomputes and answers the entity, typed; anonymous is unauthenticated', async () => {
    const id = await created([{ type: '_type', reference: book }, { type: 'title', string: 'Sum' }]);
    const answer = await gql(`mutation($id: ID!) { aggregate(id: $id) { _id __typename ... on Book { title } } }`, { id });
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.aggregate).toEqual({ _id: id, __typename: 'Book', title: 'Sum' });
    expect(codesOf(await graphqlAs(t, null)(`mutation($id: ID!) { aggregate(id: $id) { _id } }`, { id }))).toEqual(['unauthenticated']);
  });

  it('the client\'s graphql() helper runs a mutation and a query, and throws EntiaError for what is not a GraphQL answer', async () => {
    const db = new EntiaClient({ baseUrl: t.baseUrl, apiKey: t.owner.apiKey, db: t.db }).db();
    const made = await db.graphql<{ create: { _id: string } }>(CREATE, { values: [{ type: '_type', reference: book }, { type: 'title', string: 'Via client' }] });
    expect(made.errors).toBeUndefined();
    const read = await db.graphql<{ entity: { title: string } }>(`query($id: ID!) { entity(id: $id) { ... on Book { title } } }`, { id: made.data!.create._id });
    expect(read.data).toEqual({ entity: { title: 'Via client' } });
    expect((await db.graphql(`mutation { deleteEntity(id: "nope") }`)).errors?.[0]?.extensions?.code).toBe('not-found');
    const missing = await new EntiaClient({ baseUrl: t.baseUrl, apiKey: t.owner.apiKey, db: 'nosuchdb' }).db().graphql('{ __typename }').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(EntiaError);
  });
});
