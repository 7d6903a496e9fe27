import { parseListQuery, rawQueryOf } from '@entia/domain';
import { SORT_INDEX_CAP, SORT_INDEX_PREFIX, compileSort, servesSort, sortIndexOf } from '@entia/store';
import request from 'supertest';
import { benchQueries, queryString, type QueryWorld } from '../../../bench/queries';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * Sort indexes built on first use: a list sorted by a property asks for the index that walks
 * that sort, answers sorted meanwhile, and the database ends with the index (read with
 * listIndexes on the server). At the cap, a new sort gets no index and the list says so.
 */

interface ListedIndex {
  name: string;
  key: Record<string, number>;
}

async function indexesOf(api: TestApi, db: string): Promise<ListedIndex[]> {
  return (await api.deps.store.database(db).collection('entity').listIndexes().toArray()) as ListedIndex[];
}

const sortIndexes = (indexes: ListedIndex[]) => indexes.filter((index) => index.name.startsWith(SORT_INDEX_PREFIX));

/** Whether some index of the database walks the list's sort (as the store compiles it) in order. */
const servedBy = (indexes: ListedIndex[], query: string) => {
  const sort = compileSort(parseListQuery(rawQueryOf(query)).sort) as Record<string, number>;
  return indexes.find((index) => servesSort(index.key, sort))?.name;
};

describe('sorts an index serves', () => {
  let api: TestApi;
  let t: TestTenant;
  let book: string;
  const warnings: string[] = [];

  beforeAll(async () => {
    api = testApi({ LOG_LEVEL: 'warn' }, { write: (line: string) => void warnings.push(line) });
    t = await testTenant(api);
    book = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'pages', type: 'number' },
    ]);
    for (const [title, pages] of [['Dune', 412], ['émile', 90], ['Anna', 864], ['zorba', 300]] as const) {
      const res = await t.create([{ type: '_type', reference: book }, { type: 'title', string: title }, { type: 'pages', number: pages }]);
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const list = (query: string) => request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}&${query}`).set('Authorization', t.owner.auth);
  const titles = (res: request.Response) => res.body.entities.map((e: { title: { string: string }[] }) => e.title[0]!.string);

  it('a list sorted by a property answers sorted at once, and its index exists after it (one, however often it is asked)', async () => {
    expect(servedBy(await indexesOf(api, t.db), 'sort=title.string')).toBeUndefined();
    const first = await list('sort=title.string');
    expect(first.status).toBe(200);
    expect(titles(first)).toEqual(['Anna', 'Dune', 'émile', 'zorba']);
    expect(first.body.warnings).toBeUndefined();
    const again = await Promise.all([list('sort=title.string'), list('sort=title.string&limit=2')]);
    expect(again.map((res) => res.status)).toEqual([200, 200]);
    await api.deps.store.sortIndexes.settled(t.db);

    const indexes = await indexesOf(api, t.db);
    expect(servedBy(indexes, 'sort=title.string')).toBe(sortIndexOf({ '__sort.title.string.min': 1, _id: 1 })!.name);
    expect(sortIndexes(indexes).map((index) => index.key)).toEqual([{ '__sort.title.string.min': 1, _id: 1 }]);
    // Descending reads the largest value: a field of its own, so an index of its own.
    expect(servedBy(indexes, 'sort=-title.string')).toBeUndefined();
    expect(titles(await list('sort=-title.string'))).toEqual(['zorba', 'émile', 'Dune', 'Anna']);
    await api.deps.store.sortIndexes.settled(t.db);
    expect(servedBy(await indexesOf(api, t.db), 'sort=-title.string')).toMatch(/^sort_[0-9a-f]{20}$/);
  });

  it('the sorts the fixed indexes give build nothing', async () => {
    const before = sortIndexes(await indexesOf(api, t.db)).length;
    for (const query of ['sort=_created.datetime', 'sort=-_created.datetime', '']) expect((await list(query)).status).toBe(200);
    await api.deps.store.sortIndexes.settled(t.db);
    expect(sortIndexes(await indexesOf(api, t.db))).toHaveLength(before);
  });

  it('hostile sort keys are 400 and build nothing', async () => {
    const before = (await indexesOf(api, t.db)).length;
    const hostile = [
      'sort=__proto__.string',
      'sort=$where.string',
      'sort=title.string.min',
      'sort=title.$gt',
      'sort=a.b.string',
      'sort=__sort.string',
      `sort=${'x'.repeat(300)}.string`,
      `sort=${Array.from({ length: 9 }, (_, n) => `p${n}.number`).join(',')}`,
      'sort=constructor.string',
    ];
    for (const query of hostile) {
      const res = await list(encodeURI(query));
      expect([query, res.status]).toEqual([query, 400]);
    }
    await api.deps.store.sortIndexes.settled(t.db);
    expect(await indexesOf(api, t.db)).toHaveLength(before);
  });
});

describe('a database at the cap of sort indexes', () => {
  let api: TestApi;
  let t: TestTenant;
  let type: string;
  // Each number property sorts two ways (its smallest value ascending, its largest descending).
  const properties = Array.from({ length: SORT_INDEX_CAP / 2 + 1 }, (_, n) => `n${n}`);

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    type = await t.defineType('row', properties.map((name) => ({ name, type: 'number' })));
    for (const value of [3, 1, 2]) {
      const res = await t.create([{ type: '_type', reference: type }, ...properties.map((name) => ({ type: name, number: value }))]);
      expect(res.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const list = (sort: string) => request(api.app).get(`/api/${t.db}/entity?_type.reference=${type}&sort=${sort}&props=n0`).set('Authorization', t.owner.auth);
  const values = (res: request.Response) => res.body.entities.map((e: { n0: { number: number }[] }) => e.n0[0]!.number);

  it(`gets ${SORT_INDEX_CAP} sort indexes and no more; a sort beyond them answers sorted, with a warning`, async () => {
    const sorts = properties.flatMap((name) => [`${name}.number`, `-${name}.number`]);
    for (const sort of sorts.slice(0, SORT_INDEX_CAP)) {
      const res = await list(sort);
      expect([sort, res.status, res.body.warnings]).toEqual([sort, 200, undefined]);
      await api.deps.store.sortIndexes.settled(t.db);
    }
    expect(sortIndexes(await indexesOf(api, t.db))).toHaveLength(SORT_INDEX_CAP);

    const beyond = await list('-n0.number,n1.number');
    expect(beyond.status).toBe(200);
    expect(values(beyond)).toEqual([3, 2, 1]);
    expect(beyond.body.warnings).toEqual([expect.stringMatching(/^sort=-n0\.number,n1\.number is not served by an index: .*\(24\)/)]);
    await api.deps.store.sortIndexes.settled(t.db);
    expect(sortIndexes(await indexesOf(api, t.db))).toHaveLength(SORT_INDEX_CAP);

    // A sort that has its index says nothing at the cap.
    const served = await list('n0.number');
    expect([values(served), served.body.warnings]).toEqual([[1, 2, 3], undefined]);
  }, 120_000);
});

describe('a sort index that cannot be built', () => {
  let api: TestApi;
  let t: TestTenant;
  let book: string;
  const logged: string[] = [];

  beforeAll(async () => {
    api = testApi({ LOG_LEVEL: 'warn' }, { write: (line: string) => void logged.push(line) });
    t = await testTenant(api);
    book = await t.defineType('book', [{ name: 'title', type: 'string' }]);
    for (const title of ['b-secret-title', 'a-secret-title']) expect((await t.create([{ type: '_type', reference: book }, { type: 'title', string: title }])).status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  it('fails no list, and is logged once at warn, without values', async () => {
    // An operator's index holding the name the sort's index would take, on another key.
    const name = sortIndexOf({ '__sort.title.string.min': 1, _id: 1 })!.name;
    await api.deps.store.database(t.db).collection('entity').createIndex({ '__sort.title.string.max': 1 }, { name });
    for (let n = 0; n < 3; n++) {
      const res = await request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}&sort=title.string`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      expect(res.body.entities.map((e: { title: { string: string }[] }) => e.title[0]!.string)).toEqual(['a-secret-title', 'b-secret-title']);
      await api.deps.store.sortIndexes.settled(t.db);
    }
    const lines = logged.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.index === name);
    expect(lines).toEqual([expect.objectContaining({ level: 40, db: t.db, index: name, fields: ['__sort.title.string.min', '_id'], msg: expect.stringMatching(/could not build a sort index/) })]);
    expect(logged.join('\n')).not.toContain('secret-title');
  });
});

describe('the benchmark lists', () => {
  let api: TestApi;
  let t: TestTenant;
  let world: QueryWorld;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    const author = await t.defineType('author', [{ name: 'name', type: 'string' }]);
    const book = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'pages', type: 'number' },
      { name: 'published', type: 'date' },
      { name: 'tag', type: 'string', list: true },
    ]);
    const review = await t.defineType('review', [
      { name: 'book', type: 'reference' },
      { name: 'rating', type: 'number' },
    ]);
    const popular = await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'Dune' }, { type: 'pages', number: 250 }, { type: 'published', date: '1965-08-01' }, { type: 'tag', string: 'travel' }]);
    expect(popular.status).toBe(201);
    world = { types: { author, book, review }, popularBook: popular.body._id as string };
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  it('each list sort of the benchmark is walked in order by an index of the database after its first use', async () => {
    const lists = benchQueries(world).filter((query) => query.kind === 'list');
    expect(lists.length).toBeGreaterThanOrEqual(6);
    for (const query of lists) expect((await request(api.app).get(`/api/${t.db}/entity?${queryString(query)}`).set('Authorization', t.owner.auth)).status).toBe(200);
    await api.deps.store.sortIndexes.settled(t.db);
    const indexes = await indexesOf(api, t.db);
    expect(Object.fromEntries(lists.map((query) => [query.id, servedBy(indexes, queryString(query)) !== undefined]))).toEqual(Object.fromEntries(lists.map((query) => [query.id, true])));
  });
});
