import type { CommandStartedEvent } from 'mongodb';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';
import { graphqlAs } from './graphql-client';

/**
 * issue 17: no N+1. A page of books with their authors and review counts is a fixed number of
 * database commands, whatever the page size: counted with the MongoDB driver's command monitoring
 * on the API's own client (real commands to the real database, no mock).
 */
describe('GraphQL batching: 100 books with author and review count', () => {
  let api: TestApi;
  let t: TestTenant;
  let gql: ReturnType<typeof graphqlAs>;
  const commands: CommandStartedEvent[] = [];

  beforeAll(async () => {
    // The driver's command monitoring on the API's own client (MONGODB_COMMAND_METRICS).
    api = testApi({ MONGODB_COMMAND_METRICS: 'true' });
    api.deps.store.client.on('commandStarted', (event) => commands.push(event));
    t = await testTenant(api);
    gql = graphqlAs(t);
    const author = await t.defineType('author', [{ name: 'name', type: 'string' }]);
    const book = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'author', type: 'reference' },
    ]);
    const review = await t.defineType('review', [{ name: 'book', type: 'reference' }]);
    const authors: string[] = [];
    for (let i = 0; i < 10; i++) authors.push((await t.create([{ type: '_type', reference: author }, { type: 'name', string: `Author ${i}` }])).body._id);
    const books: string[] = [];
    for (let i = 0; i < 100; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, (_, j) => t.create([{ type: '_type', reference: book }, { type: 'title', string: `Book ${String(i + j).padStart(3, '0')}` }, { type: 'author', reference: authors[(i + j) % 10] }])),
      );
      books.push(...batch.map((res) => res.body._id as string));
    }
    // Book n has n % 3 reviews.
    const reviews = books.flatMap((id, n) => Array.from({ length: n % 3 }, () => id));
    for (let i = 0; i < reviews.length; i += 10) {
      await Promise.all(reviews.slice(i, i + 10).map((id) => t.create([{ type: '_type', reference: review }, { type: 'book', reference: id }])));
    }
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const QUERY = `query($n: Int) { bookList(limit: $n, sort: [title_ASC]) { count entities { title author { ... on Author { name } } _referrerCount(type: "Review") } } }`;

  async function counted(n: number) {
    await gql(`{ __typename }`); // the schema is built and the tenant resolved: what follows is the query's own reads
    commands.length = 0;
    const answer = await gql(QUERY, { n });
    const inTenant = commands.filter((command) => command.databaseName === t.db);
    return { answer, all: commands.length, inTenant: inTenant.length, names: inTenant.map((command) => command.commandName) };
  }

  it('answers the page right', async () => {
    const { answer } = await counted(100);
    expect(answer.errors).toBeUndefined();
    const entities = answer.data!.bookList.entities;
    expect(entities).toHaveLength(100);
    expect(entities[7]).toEqual({ title: 'Book 007', author: { name: 'Author 7' }, _referrerCount: 1 });
    expect(entities[8]._referrerCount).toBe(2);
    expect(entities.reduce((sum: number, e: { _referrerCount: number }) => sum + e._referrerCount, 0)).toBe(99);
  });

  it('reads the database a fixed number of times, the same for 100 books as for 10', async () => {
    const hundred = await counted(100);
    const ten = await counted(10);
    // list page + count, the authors (10 distinct, by id: the store fetches up to 32 ids one by one), the reviews in one query.
    expect(hundred.inTenant).toBe(ten.inTenant);
    expect(hundred.inTenant).toBeLessThanOrEqual(2 + 10 + 1);
    expect(hundred.names.filter((name) => name === 'find').length).toBeGreaterThan(0);
    // Stated in docs/decisions.md: print what was measured.
    console.log(`graphql batching: 100 books → ${hundred.inTenant} tenant-database commands (${hundred.names.join(', ')}), ${hundred.all} in all`);
  });
});
