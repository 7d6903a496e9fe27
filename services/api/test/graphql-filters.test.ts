import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';
import { graphqlAs } from './graphql-client';

/**
 * issue 17: a GraphQL filter means exactly what the REST filter means. Each case is one filter
 * written both ways; the GraphQL list and the REST list must give the same entities and count.
 */
describe('GraphQL lists: the same filters, sort and paging as REST', () => {
  let api: TestApi;
  let t: TestTenant;
  let gql: ReturnType<typeof graphqlAs>;
  let book: string;
  const authors: string[] = [];

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    gql = graphqlAs(t);
    const author = await t.defineType('author', [{ name: 'name', type: 'string' }]);
    book = await t.defineType('book', [
      { name: 'title', type: 'string', search: true },
      { name: 'pages', type: 'number' },
      { name: 'available', type: 'boolean' },
      { name: 'published', type: 'date' },
      { name: 'checked', type: 'datetime' },
      { name: 'author', type: 'reference' },
      { name: 'cover', type: 'file' },
    ]);
    for (const name of ['Austen', 'Borges']) {
      const res = await t.create([{ type: '_type', reference: author }, { type: 'name', string: name }]);
      authors.push(res.body._id);
    }
    const rows: [string, number, boolean | null, string, string, number, string | null][] = [
      ['Emma', 474, true, '1815-12-23', '2024-01-01T10:00:00.000Z', 0, 'emma.png'],
      ['Persuasion', 249, false, '1817-12-20', '2024-02-01T10:00:00.000Z', 0, 'persuasion.jpg'],
      ['Ficciones', 174, true, '1944-01-01', '2024-03-01T10:00:00.000Z', 1, null],
      ['El Aleph', 146, null, '1949-06-01', '2024-04-01T10:00:00.000Z', 1, 'aleph.png'],
      ['Labyrinths', 260, true, '1962-01-01', '2024-05-01T10:00:00.000Z', 1, null],
    ];
    for (const [title, pages, available, published, checked, by, cover] of rows) {
      const res = await t.create([
        { type: '_type', reference: book },
        { type: 'title', string: title },
        { type: 'pages', number: pages },
        ...(available === null ? [] : [{ type: 'available', boolean: available }]),
        { type: 'published', date: published },
        { type: 'checked', datetime: checked },
        { type: 'author', reference: authors[by] },
        ...(cover ? [{ type: 'cover', filename: cover, filesize: pages * 10, filetype: cover.endsWith('png') ? 'image/png' : 'image/jpeg' }] : []),
      ]);
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    }
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  async function rest(query: string): Promise<{ ids: string[]; count: number }> {
    const res = await request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}&${query}`).set('Authorization', t.owner.auth);
    expect(res.status).toBe(200);
    return { ids: res.body.entities.map((e: { _id: string }) => e._id), count: res.body.count };
  }

  async function graphql(args: string, variables: Record<string, unknown> = {}): Promise<{ ids: string[]; count: number }> {
    const answer = await gql(`query($filter: BookFilter, $q: String) { bookList(filter: $filter, q: $q${args}) { count entities { _id } } }`, variables);
    expect(answer.errors).toBeUndefined();
    return { ids: answer.data!.bookList.entities.map((e: { _id: string }) => e._id), count: answer.data!.bookList.count };
  }

  const sorted = (page: { ids: string[]; count: number }) => ({ ids: [...page.ids].sort(), count: page.count });

  const cases: [string, () => Record<string, unknown>, () => string][] = [
    ['string eq', () => ({ title: { eq: 'Emma' } }), () => 'title.string=Emma'],
    ['string ne', () => ({ title: { ne: 'Emma' } }), () => 'title.string.ne=Emma'],
    ['string in', () => ({ title: { in: ['Emma', 'El Aleph'] } }), () => 'title.string.in=Emma,El%20Aleph'],
    ['string regex', () => ({ title: { regex: '/^e/i' } }), () => `title.string.regex=${encodeURIComponent('/^e/i')}`],
    ['string exists', () => ({ title: { exists: true } }), () => 'title.string.exists=true'],
    ['number eq', () => ({ pages: { eq: 249 } }), () => 'pages.number=249'],
    ['number ne', () => ({ pages: { ne: 249 } }), () => 'pages.number.ne=249'],
    ['number gt', () => ({ pages: { gt: 249 } }), () => 'pages.number.gt=249'],
    ['number gte', () => ({ pages: { gte: 249 } }), () => 'pages.number.gte=249'],
    ['number lt', () => ({ pages: { lt: 249 } }), () => 'pages.number.lt=249'],
    ['number lte + gte (a range)', () => ({ pages: { gte: 174, lte: 260 } }), () => 'pages.number.gte=174&pages.number.lte=260'],
    ['number in', () => ({ pages: { in: [146, 474, 1] } }), () => 'pages.number.in=146,474,1'],
    ['boolean eq', () => ({ available: { eq: true } }), () => 'available.boolean=true'],
    ['boolean exists false', () => ({ available: { exists: false } }), () => 'available.boolean.exists=false'],
    ['date lt', () => ({ published: { lt: '1900-01-01' } }), () => 'published.date.lt=1900-01-01'],
    ['date gte', () => ({ published: { gte: '1944-01-01' } }), () => 'published.date.gte=1944-01-01'],
    ['datetime gt', () => ({ checked: { gt: '2024-02-15T00:00:00Z' } }), () => `checked.datetime.gt=${encodeURIComponent('2024-02-15T00:00:00Z')}`],
    ['datetime in', () => ({ checked: { in: ['2024-01-01T10:00:00.000Z'] } }), () => `checked.datetime.in=${encodeURIComponent('2024-01-01T10:00:00.000Z')}`],
    ['reference eq', () => ({ author: { eq: authors[1] } }), () => `author.reference=${authors[1]}`],
    ['reference ne', () => ({ author: { ne: authors[1] } }), () => `author.reference.ne=${authors[1]}`],
    ['reference in', () => ({ author: { in: authors } }), () => `author.reference.in=${authors.join(',')}`],
    ['file filename regex', () => ({ cover: { filename: { regex: '/png$/' } } }), () => `cover.filename.regex=${encodeURIComponent('/png$/')}`],
    ['file filesize gt', () => ({ cover: { filesize: { gt: 2000 } } }), () => 'cover.filesize.gt=2000'],
    ['file filetype eq', () => ({ cover: { filetype: { eq: 'image/jpeg' } } }), () => 'cover.filetype=image%2Fjpeg'],
    ['file exists false', () => ({ cover: { filename: { exists: false } } }), () => 'cover.filename.exists=false'],
    ['_created exists', () => ({ _created: { exists: true } }), () => '_created.datetime.exists=true'],
    ['two properties', () => ({ available: { eq: true }, pages: { lt: 200 } }), () => 'available.boolean=true&pages.number.lt=200'],
  ];

  it.each(cases)('%s: the same entities and count as REST', async (_name, filter, query) => {
    const [viaGraphql, viaRest] = [await graphql('', { filter: filter() }), await rest(query())];
    expect(sorted(viaGraphql)).toEqual(sorted(viaRest));
    expect(viaRest.count).toBeLessThan(5 + 1);
  });

  it('every operator case above narrows something: the table is not vacuous', async () => {
    const counts = await Promise.all(cases.map(async ([, , query]) => (await rest(query())).count));
    expect(counts.filter((count) => count > 0 && count < 5).length).toBeGreaterThan(cases.length / 2);
  });

  it('q searches like REST', async () => {
    expect(sorted(await graphql('', { q: 'el al' }))).toEqual(sorted(await rest('q=el%20al')));
    expect((await graphql('', { q: 'persu' })).count).toBe(1);
  });

  it('sort on several fields and paging give the same order and page as REST', async () => {
    const viaGraphql = await graphql(', sort: [published_DESC, pages_ASC], limit: 2, skip: 1');
    const viaRest = await rest('sort=-published.date,pages.number&limit=2&skip=1');
    expect(viaGraphql).toEqual(viaRest);
    expect(viaGraphql.ids).toHaveLength(2);
    expect(await graphql(', sort: [cover_filename_DESC, title_ASC]')).toEqual(await rest('sort=-cover.filename,title.string'));
    expect(await graphql(', limit: 0')).toEqual(await rest('limit=0'));
  });

  it('refuses what REST refuses, with the same kind: a limit over 1000, a bad regex, a bad date', async () => {
    for (const [args, variables] of [
      [', limit: 1001', {}],
      [', skip: -1', {}],
      ['', { filter: { title: { regex: 'no slashes' } } }],
      ['', { filter: { published: { eq: 'yesterday' } } }],
    ] as const) {
      const answer = await gql(`query($filter: BookFilter) { bookList(filter: $filter${args}) { count } }`, variables);
      expect(answer.errors?.[0]?.extensions?.code).toBe('invalid');
    }
  });
});
