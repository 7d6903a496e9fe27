import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

describe('GET /api/{db}/entity (SPEC §7)', () => {
  let api: TestApi;
  let t: TestTenant;
  let book: string;
  const titles = ['Dune', 'Émile', 'emma', 'Zorba', 'Anna Karenina'];

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    book = await t.defineType('book', [
      { name: 'title', type: 'string', search: true },
      { name: 'pages', type: 'number' },
      { name: 'note', type: 'string' },
    ]);
    for (const [i, title] of titles.entries()) {
      const res = await t.create([
        { type: '_type', reference: book },
        { type: 'title', string: title },
        { type: 'pages', number: (i + 1) * 100 },
        { type: 'note', string: `secret${i}` },
      ]);
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const list = (query: string) => request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}&${query}`).set('Authorization', t.owner.auth);
  const names = (res: request.Response) => res.body.entities.map((e: { title?: { string: string }[] }) => e.title?.[0]?.string);

  it('answers {entities, count, limit, skip}', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ count: 5, limit: 100, skip: 0 });
    expect(res.body.entities).toHaveLength(5);
  });

  it('filters, sorts case- and accent-insensitively, pages with a stable order', async () => {
    const res = await list('pages.number.gte=200&sort=title.string&limit=2&skip=1');
    expect(res.body.count).toBe(4);
    expect(names(res)).toEqual(['Émile', 'emma']);
  });

  it('q matches word prefixes of searchable properties only, folding case and accents', async () => {
    expect(names(await list('q=EMI'))).toEqual(['Émile']);
    expect(names(await list('q=anna kar'))).toEqual(['Anna Karenina']);
    expect((await list('q=secret0')).body.count).toBe(0);
  });

  it('limit=0 returns only the count; props limits the properties', async () => {
    expect((await list('limit=0')).body).toEqual({ entities: [], count: 5, limit: 0, skip: 0 });
    const res = await list('props=title&limit=1');
    expect(Object.keys(res.body.entities[0]).sort()).toEqual(['_id', 'title']);
  });

  it('a stranger and an anonymous caller see none of the private books', async () => {
    const stranger = await t.newPerson('Stranger');
    const res = await request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}`).set('Authorization', stranger.auth);
    expect(res.body).toMatchObject({ entities: [], count: 0 });
    expect((await request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}`)).body.count).toBe(0);
  });

  it.each([
    ['title.number=1', 'title.number'],
    ['pages.number.regex=/1/', 'pages.number.regex'],
    ['pages.number=abc', 'pages.number'],
    ['title.string.like=x', 'title.string.like'],
    ['colour.string=red', 'colour.string'],
    ['limit=1001', 'limit'],
    ['limit=-1', 'limit'],
    ['skip=x', 'skip'],
    ['sort=title', 'sort'],
    ['limit=1&limit=2', 'limit'],
    ['title.string.regex=/(a+)+$/x', 'title.string.regex'],
    ['title.string.regex=/(?<=a)b/', 'title.string.regex'],
    ['title.string.regex=/[/', 'title.string.regex'],
  ])('%s is a 400 naming %s', async (query, parameter) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { parameter: string }) => e.parameter)).toContain(parameter);
  });

  it('an equality on a string too long for the attribute index still matches exactly', async () => {
    const long = `${'long '.repeat(60)}end`;
    const id = (await t.create([{ type: '_type', reference: book }, { type: 'note', string: long }])).body._id;
    const res = await list(`note.string=${encodeURIComponent(long)}`);
    expect(res.body.entities.map((e: { _id: string }) => e._id)).toEqual([id]);
    expect((await request(api.app).delete(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).status).toBe(200);
  });

  it('a value can never become an operator', async () => {
    const res = await list(`title.string=${encodeURIComponent('{"$ne":null}')}`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(0);
  });
});
