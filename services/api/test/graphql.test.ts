import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';
import { codesOf, graphqlAs } from './graphql-client';

/** issue 17: the generated schema, reads through references and reverse relations, rights. */
describe('GraphQL /api/{db}/graphql: schema and reads', () => {
  let api: TestApi;
  let t: TestTenant;
  let gql: ReturnType<typeof graphqlAs>;
  let author: string;
  let book: string;
  let review: string;
  let tolkien: string;
  let hidden: string;
  let hobbit: string;
  let secretBook: string;
  let stranger: Person;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    gql = graphqlAs(t);
    stranger = await t.newPerson('Stranger');
    author = await t.defineType('author', [{ name: 'name', type: 'string', search: true }]);
    book = await t.defineType('book', [
      { name: 'title', type: 'string', search: true },
      { name: 'pages', type: 'number' },
      { name: 'available', type: 'boolean' },
      { name: 'published', type: 'date' },
      { name: 'checked', type: 'datetime' },
      { name: 'blurb', type: 'text', multilingual: true, list: true },
      { name: 'tags', type: 'string', list: true },
      { name: 'author', type: 'reference', reference_query: `_type.reference=${author}` },
      { name: 'cover', type: 'file' },
    ]);
    review = await t.defineType('review', [
      { name: 'book', type: 'reference' },
      { name: 'stars', type: 'number' },
    ]);
    const id = async (values: object[]) => {
      const res = await t.create(values);
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
      return res.body._id as string;
    };
    const domain = { type: '_sharing', string: 'domain' };
    tolkien = await id([{ type: '_type', reference: author }, { type: 'name', string: 'Tolkien' }, domain]);
    hidden = await id([{ type: '_type', reference: author }, { type: 'name', string: 'Hidden' }]);
    hobbit = await id([
      { type: '_type', reference: book },
      { type: 'title', string: 'The Hobbit' },
      { type: 'pages', number: 310 },
      { type: 'available', boolean: true },
      { type: 'published', date: '1937-09-21' },
      { type: 'checked', datetime: '2024-01-02T03:04:05.000Z' },
      { type: 'blurb', string: 'A hobbit goes there and back again', language: 'en' },
      { type: 'blurb', string: 'Ein Hobbit geht hin und zurück', language: 'de' },
      { type: 'tags', string: 'fantasy' },
      { type: 'tags', string: 'classic' },
      { type: 'author', reference: tolkien },
      { type: 'cover', filename: 'hobbit.png', filesize: 1234, filetype: 'image/png' },
      domain,
    ]);
    secretBook = await id([
      { type: '_type', reference: book },
      { type: 'title', string: 'Unfinished Tales' },
      { type: 'pages', number: 90 },
      { type: 'author', reference: hidden },
    ]);
    await id([{ type: '_type', reference: book }, { type: 'title', string: 'Silmarillion' }, { type: 'pages', number: 480 }, { type: 'available', boolean: false }, { type: 'author', reference: hidden }, domain]);
    for (const stars of [5, 4]) await id([{ type: '_type', reference: review }, { type: 'book', reference: hobbit }, { type: 'stars', number: stars }, domain]);
    await id([{ type: '_type', reference: review }, { type: 'book', reference: hobbit }, { type: 'stars', number: 1 }]);
    await id([{ type: '_type', reference: review }, { type: 'book', reference: secretBook }, { type: 'stars', number: 2 }, domain]);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const shapeOf = (type: { kind: string; name: string | null; ofType?: unknown }): string =>
    type.kind === 'NON_NULL' ? `${shapeOf(type.ofType as never)}!` : type.kind === 'LIST' ? `[${shapeOf(type.ofType as never)}]` : type.name!;

  it('generates an object type per entity type, a field per definition shaped by value type, list and multilingual', async () => {
    const answer = await gql(`{ __type(name: "Book") { interfaces { name } fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }`);
    expect(answer.errors).toBeUndefined();
    const fields = Object.fromEntries(answer.data!.__type.fields.map((f: { name: string; type: never }) => [f.name, shapeOf(f.type)]));
    expect(fields).toMatchObject({
      _id: 'ID!',
      _type: 'String',
      _created: 'Created',
      _sharing: 'String',
      _owner: '[ID!]!',
      _children: '[Entity!]!',
      _referrers: '[Entity!]!',
      _referrerCount: 'Int!',
      history: 'History',
      title: 'String',
      pages: 'Float',
      available: 'Boolean',
      published: 'String',
      checked: 'String',
      blurb: '[LocalizedString!]!',
      tags: '[String!]!',
      author: 'Author',
      cover: 'FileValue',
    });
    expect(answer.data!.__type.interfaces).toEqual([{ name: 'Entity' }]);
    const reviewBook = await gql(`{ __type(name: "Review") { fields { name type { kind name } } } }`);
    expect(reviewBook.data!.__type.fields.find((f: { name: string }) => f.name === 'book').type).toEqual({ kind: 'INTERFACE', name: 'Entity' });
  });

  it('names types and fields so that GraphQL takes them, collision-free', async () => {
    // Property names already fit GraphQL (^[A-Za-z][A-Za-z0-9_]*$); type names are free text.
    const first = await t.defineType('blog post', [{ name: 'headline', type: 'string' }]);
    const second = await t.defineType('blog-post', [{ name: 'history', type: 'string' }]);
    const names = async (type: string) => (await gql(`{ __type(name: "${type}") { fields { name } } }`)).data!.__type.fields.map((f: { name: string }) => f.name);
    const [a, b] = first < second ? ['Blog_post', 'Blog_post_2'] : ['Blog_post_2', 'Blog_post'];
    expect(await names(a)).toEqual(expect.arrayContaining(['headline']));
    // A property named like a system field gets a numbered name; the system field keeps its meaning.
    expect(await names(b)).toEqual(expect.arrayContaining(['history', 'history_2']));
    const lists = (await gql(`{ __schema { queryType { fields { name } } } }`)).data!.__schema.queryType.fields.map((f: { name: string }) => f.name);
    expect(lists).toEqual(expect.arrayContaining(['entity', 'bookList', 'authorList', 'reviewList', 'blog_postList', 'blog_post_2List']));
  });

  it('reads an entity by id with every value type, a language picked, a typed reference and a signed file URL', async () => {
    const answer = await gql(
      `query($id: ID!) { entity(id: $id) { _id _type ... on Book { title pages available published checked tags
        en: blurb(language: "en") { value language } blurb { language }
        author { _id name } cover { filename filesize filetype url } } } }`,
      { id: hobbit },
    );
    expect(answer.errors).toBeUndefined();
    const hobbitRead = answer.data!.entity;
    expect(hobbitRead).toMatchObject({
      _id: hobbit,
      _type: 'book',
      title: 'The Hobbit',
      pages: 310,
      available: true,
      published: '1937-09-21',
      checked: '2024-01-02T03:04:05.000Z',
      tags: ['fantasy', 'classic'],
      en: [{ value: 'A hobbit goes there and back again', language: 'en' }],
      author: { _id: tolkien, name: 'Tolkien' },
      cover: { filename: 'hobbit.png', filesize: 1234, filetype: 'image/png' },
    });
    expect(hobbitRead.blurb.map((b: { language: string }) => b.language).sort()).toEqual(['de', 'en']);
    expect(hobbitRead.cover.url).toMatch(/^https?:\/\//);
  });

  it('follows reverse relations with a type filter, counted and limited', async () => {
    const answer = await gql(
      `query($id: ID!) { entity(id: $id) { ... on Book { _referrerCount(type: "Review") reviews: _referrers(type: "Review") { ... on Review { stars book { _id } } } one: _referrers(type: "Review", limit: 1) { _id } } } }`,
      { id: hobbit },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.entity._referrerCount).toBe(3);
    expect(answer.data!.entity.reviews.map((r: { stars: number }) => r.stars).sort()).toEqual([1, 4, 5]);
    expect(answer.data!.entity.reviews[0].book._id).toBe(hobbit);
    expect(answer.data!.entity.one).toHaveLength(1);
    const children = await gql(`query($id: ID!) { entity(id: $id) { _children(type: "Book") { _id } _childCount } }`, { id: book });
    expect(children.data!.entity._childCount).toBeGreaterThanOrEqual(9); // the type's property definitions
    expect(children.data!.entity._children).toEqual([]);
    expect(codesOf(await gql(`query($id: ID!) { entity(id: $id) { _referrers(type: "Nope") { _id } } }`, { id: hobbit }))).toEqual(['invalid']);
  });

  it('a private entity is invisible to a stranger through every path: by id, in lists and counts, as a reference, as a referrer', async () => {
    const as = graphqlAs(t, stranger);
    expect((await as(`query($id: ID!) { entity(id: $id) { _id } }`, { id: secretBook })).data!.entity).toBeNull();
    const list = await as(`{ bookList(sort: [title_ASC]) { count entities { _id title author { _id } } } }`);
    expect(list.data!.bookList.count).toBe(2);
    expect(list.data!.bookList.entities.map((b: { title: string }) => b.title)).toEqual(['Silmarillion', 'The Hobbit']);
    // Silmarillion's author is private: the reference resolves to null, not to the author.
    expect(list.data!.bookList.entities[0].author).toBeNull();
    const referrers = await as(`query($id: ID!) { entity(id: $id) { _referrerCount(type: "Review") _referrers(type: "Review") { _id } } }`, { id: hobbit });
    expect(referrers.data!.entity._referrerCount).toBe(2);
    expect(referrers.data!.entity._referrers).toHaveLength(2);
    // The owner sees all of them.
    expect((await gql(`{ bookList { count } }`)).data!.bookList.count).toBe(3);
  });

  it('an anonymous caller sees public entities only', async () => {
    const anonymous = graphqlAs(t, null);
    const answer = await anonymous(`{ bookList { count } authorList { count } }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ bookList: { count: 0 }, authorList: { count: 0 } });
    expect((await anonymous(`query($id: ID!) { entity(id: $id) { _id } }`, { id: hobbit })).data!.entity).toBeNull();
  });

  it('rebuilds the schema after a definition is added: the new field is there at once', async () => {
    expect((await gql(`{ reviewList { entities { comment } } }`)).errors![0]!.message).toMatch(/Cannot query field "comment"/);
    await t.defineProperty(review, { name: 'comment', type: 'string' });
    const answer = await gql(`{ reviewList(filter: { comment: { exists: false } }) { count entities { comment } } }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.reviewList.count).toBe(4);
  });

  it('answers history through the history use case', async () => {
    const answer = await gql(`query($id: ID!) { entity(id: $id) { history(limit: 5) { count changes { type at } } } }`, { id: hobbit });
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.entity.history.count).toBeGreaterThan(0);
    expect(answer.data!.entity.history.changes.length).toBeLessThanOrEqual(5);
  });

  describe('transport', () => {
    const url = () => `/api/${t.db}/graphql`;
    it('GET runs a query; a mutation over GET is 405', async () => {
      const res = await request(api.app).get(url()).query({ query: '{ bookList { count } }' }).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text).data.bookList.count).toBe(3);
      const mutation = await request(api.app).get(url()).query({ query: 'mutation { deleteEntity(id: "65f000000000000000000001") }' }).set('Authorization', t.owner.auth);
      expect(mutation.status).toBe(405);
    });
    it('bad JSON, a wrong media type, a missing query and an unknown database are problems, not 500s', async () => {
      const bad = await request(api.app).post(url()).set('Content-Type', 'application/json').send('{"query": ');
      expect(bad.status).toBe(400);
      expect(bad.headers['content-type']).toMatch(/problem\+json/);
      const text = await request(api.app).post(url()).set('Content-Type', 'text/plain').send('{ bookList { count } }');
      expect(text.status).toBe(415);
      expect(text.headers['content-type']).toMatch(/problem\+json/);
      expect((await request(api.app).post(url()).send({})).status).toBe(400);
      const unknown = await request(api.app).post('/api/nosuchdb/graphql').send({ query: '{ __typename }' });
      expect(unknown.status).toBe(404);
      expect(unknown.headers['content-type']).toMatch(/problem\+json/);
    });
  });
});
