import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/**
 * Grouped counts (`group=<property>.<field>[,…]`, SPEC §7a, issue 32 item 3), as Entu's web client
 * asks for them (R5: a folder's children by type, `entities[]._type[0].reference` and `_count`)
 * and as any client may: by a reference, a string, a number, two keys; with filters, `q`, `props`,
 * `sort`, `limit`/`skip`; only what the caller may read counted; hostile input refused naming the
 * parameter; one database command per grouped list.
 */
describe('GET /api/{db}/entity?group=…', () => {
  let api: TestApi;
  let t: TestTenant;
  let member: Person;
  let folderType: string;
  let bookType: string;
  let writerType: string;
  let folder: string;
  let austen: string;
  let herbert: string;

  type Row = Record<string, { type: string; reference?: string; string?: string; number?: number }[]> & { _count: number };

  beforeAll(async () => {
    api = testApi({ MONGODB_COMMAND_METRICS: 'true', RATE_LIMIT_MAX: '1000000' });
    t = await testTenant(api);
    member = await t.newPerson('Member');
    folderType = await t.defineType('folder', [{ name: 'name', type: 'string' }]);
    writerType = await t.defineType('writer', [{ name: 'name', type: 'string' }]);
    bookType = await t.defineType('book', [
      { name: 'title', type: 'string', search: true },
      { name: 'genre', type: 'string' },
      { name: 'year', type: 'number' },
      { name: 'author', type: 'reference' },
    ]);
    const created = async (values: object[]) => {
      const res = await t.create(values);
      if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
      return res.body._id as string;
    };
    const domain = { type: '_sharing', string: 'domain' };
    folder = await created([{ type: '_type', reference: folderType }, { type: 'name', string: 'Shelf' }, domain]);
    austen = await created([{ type: '_type', reference: writerType }, { type: 'name', string: 'Jane Austen' }, domain]);
    herbert = await created([{ type: '_type', reference: writerType }, { type: 'name', string: 'Frank Herbert' }, domain]);
    const book = (title: string, genre: string, year: number, author: string, shared = true) =>
      created([
        { type: '_type', reference: bookType },
        { type: '_parent', reference: folder },
        { type: 'title', string: title },
        { type: 'genre', string: genre },
        { type: 'year', number: year },
        { type: 'author', reference: author },
        ...(shared ? [domain] : []),
      ]);
    await book('Emma', 'novel', 1815, austen);
    await book('Persuasion', 'novel', 1817, austen);
    await book('Dune', 'science fiction', 1965, herbert);
    // Only the owner reads it: never counted for anybody else.
    await book('Secret Diary', 'diary', 1999, herbert, false);
    await created([{ type: '_type', reference: folderType }, { type: '_parent', reference: folder }, { type: 'name', string: 'Drawer' }, domain]);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  /** As `by` (the owner unless given; `null`: anonymous). */
  const list = (query: string, by: Person | null = t.owner) => {
    const req = request(api.app).get(`/api/${t.db}/entity?${query}`);
    return by ? req.set('Authorization', by.auth) : req;
  };
  /** Each row as `<first value's field or label>…: count`, in the answer's order. */
  const summary = (res: request.Response, property: string, field: 'reference' | 'string' | 'number' = 'string') => {
    expect(res.status).toBe(200);
    return (res.body.entities as Row[]).map((row) => `${row[property]?.map((value) => value[field]).join('+') ?? '-'}: ${row._count}`);
  };

  it('R5, a folder\'s children by type, as Entu\'s client reads them: _type[0].reference and _count, the type\'s name as label; count is the rows', async () => {
    const res = await list(`_parent.reference=${folder}&group=_type.reference&props=_type`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      entities: expect.any(Array),
      count: 2,
      limit: 100,
      skip: 0,
    });
    const byType = Object.fromEntries((res.body.entities as Row[]).map((row) => [row._type![0]!.reference, row._count]));
    expect(byType).toEqual({ [bookType]: 4, [folderType]: 1 });
    for (const row of res.body.entities as Row[]) {
      expect(Object.keys(row).sort()).toEqual(['_count', '_type']);
      expect(row._type).toEqual([{ type: '_type', reference: row._type![0]!.reference, string: row._type![0]!.reference === bookType ? 'book' : 'folder' }]);
    }
  });

  it('counts only what the caller may read: a member of the database does not count the private book, an anonymous caller sees no row', async () => {
    const query = `_parent.reference=${folder}&group=_type.reference`;
    expect(summary(await list(query, member), '_type')).toEqual(expect.arrayContaining(['book: 3', 'folder: 1']));
    expect((await list(query, null)).body).toEqual({ entities: [], count: 0, limit: 100, skip: 0 });
    expect(summary(await list(`_type.reference=${bookType}&group=author.reference`, member), 'author')).toEqual(expect.arrayContaining(['Jane Austen: 2', 'Frank Herbert: 1']));
  });

  it('by a reference property of the user\'s own, a string, a number, or two keys; the rows in the keys\' order', async () => {
    const books = `_type.reference=${bookType}`;
    const byAuthor = await list(`${books}&group=author.reference`);
    expect((byAuthor.body.entities as Row[]).map((row) => [row.author![0]!.reference, row.author![0]!.string, row._count])).toEqual(
      [
        [austen, 'Jane Austen', 2],
        [herbert, 'Frank Herbert', 2],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(summary(await list(`${books}&group=genre.string`), 'genre')).toEqual(['diary: 1', 'novel: 2', 'science fiction: 1']);
    expect(summary(await list(`${books}&group=year.number`), 'year', 'number')).toEqual(['1815: 1', '1817: 1', '1965: 1', '1999: 1']);
    const two = await list(`${books}&group=genre.string,author.reference&sort=genre.string`);
    expect((two.body.entities as Row[]).map((row) => `${row.genre![0]!.string}/${row.author![0]!.string}: ${row._count}`)).toEqual([
      'diary/Frank Herbert: 1',
      'novel/Jane Austen: 2',
      'science fiction/Frank Herbert: 1',
    ]);
    expect(two.body.count).toBe(3);
  });

  it('honours filters and q, and props naming grouped properties (Entu\'s props=_type)', async () => {
    const books = `_type.reference=${bookType}`;
    expect(summary(await list(`${books}&year.number.gte=1816&group=author.reference&sort=author.string`), 'author')).toEqual(['Frank Herbert: 2', 'Jane Austen: 1']);
    expect(summary(await list(`q=emm&group=_type.reference`), '_type')).toEqual(['book: 1']);
    expect(summary(await list(`${books}&genre.string.in=novel,diary&group=genre.string&props=genre`), 'genre')).toEqual(['diary: 1', 'novel: 2']);
    expect(summary(await list(`_parent.reference=${herbert}&group=_type.reference`), '_type')).toEqual([]);
  });

  it('sorts rows by a key or a grouped reference\'s label, either way, and pages them with limit and skip; count stays every row', async () => {
    const books = `_type.reference=${bookType}`;
    const page = await list(`${books}&group=year.number&sort=-year.number&limit=2&skip=1`);
    expect(summary(page, 'year', 'number')).toEqual(['1965: 1', '1817: 1']);
    expect(page.body).toMatchObject({ count: 4, limit: 2, skip: 1 });
    expect(summary(await list(`${books}&group=author.reference&sort=-author.string`), 'author')).toEqual(['Jane Austen: 2', 'Frank Herbert: 2']);
    expect(summary(await list(`${books}&group=author.reference&sort=author.string`), 'author')).toEqual(['Frank Herbert: 2', 'Jane Austen: 2']);
    expect((await list(`${books}&group=year.number&limit=0`)).body).toEqual({ entities: [], count: 4, limit: 0, skip: 0 });
    expect((await list(`${books}&group=year.number&skip=10`)).body).toEqual({ entities: [], count: 4, limit: 100, skip: 10 });
    // count=none: no count (it costs nothing here, but the answer says what was asked).
    expect((await list(`${books}&group=year.number&count=none&limit=1`)).body).toEqual({ entities: [{ year: [{ type: 'year', number: 1815 }], _count: 1 }], limit: 1, skip: 0 });
  });

  it('is one database command (an aggregate), cached like any list, fresh after a write; POST /entity/query answers the same', async () => {
    const query = `_parent.reference=${folder}&group=genre.string&sort=-genre.string`;
    await list(`_parent.reference=${folder}&limit=1`); // the schema cache is warm
    const commands: string[] = [];
    const stop = api.deps.store.onCommand((name) => commands.push(name));
    const first = await list(query);
    stop();
    expect([first.status, first.headers['x-cache'], commands]).toEqual([200, 'miss', ['aggregate']]);
    const again = await list(query);
    expect([again.headers['x-cache'], again.body]).toEqual(['hit', first.body]);
    const posted = await request(api.app).post(`/api/${t.db}/entity/query`).set('Authorization', t.owner.auth).send({ '_parent.reference': folder, group: 'genre.string', sort: '-genre.string' });
    expect([posted.status, posted.body]).toEqual([200, first.body]);

    const res = await t.create([{ type: '_type', reference: bookType }, { type: '_parent', reference: folder }, { type: 'genre', string: 'novel' }]);
    expect(res.status).toBe(201);
    const after = await list(query);
    expect(summary(after, 'genre')).toEqual(['science fiction: 1', 'novel: 3', 'diary: 1', '-: 1']);
  });

  it.each<[string, string]>([
    ['group=', 'group'],
    ['group=_type', 'group'],
    ['group=_type.reference.in', 'group'],
    ['group=_type.text', 'group'],
    ['group=__proto__.string', 'group'],
    ['group=constructor.reference', 'group'],
    ['group=toString.string', 'group'],
    ['group=$where.string', 'group'],
    ['group=_type.$first', 'group'],
    ['group=_api_key.string', 'group'],
    ['group=nothing.string', 'group'],
    ['group=year.string', 'group'],
    ['group=title.reference', 'group'],
    ['group=title.string,title.string', 'group'],
    ['group=a.string,b.string,c.string,d.string,e.string', 'group'],
    [`group=${'x'.repeat(5000)}.string`, 'group'],
    ['group=title.string&group=genre.string', 'group'],
    ['group=_type.reference&sort=title.string', 'sort'],
    ['group=_type.reference&sort=_count', 'sort'],
    ['group=_type.reference&after=abc', 'after'],
    ['group=_type.reference&props=title', 'props'],
  ])('%s is 400 naming %s', async (query, parameter) => {
    const res = await list(`_type.reference=${bookType}&${query}`);
    expect([res.status, res.body.errors?.map((e: { parameter?: string }) => e.parameter)]).toEqual([400, expect.arrayContaining([parameter])]);
  });

  it('group[$ne]=x is a filter key like any other (400), and group in a POST body must be a string', async () => {
    expect((await list('group[$ne]=x')).status).toBe(400);
    const res = await request(api.app).post(`/api/${t.db}/entity/query`).set('Authorization', t.owner.auth).send({ group: { $ne: 1 } });
    expect([res.status, res.body.errors?.map((e: { pointer?: string }) => e.pointer)]).toEqual([400, ['/group']]);
  });
});
