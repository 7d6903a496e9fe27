import jwt from 'jsonwebtoken';
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/**
 * Hostile input against the entity endpoints (SPEC §2, §3, §7, §11): every refusal is a clear 4xx
 * with an RFC 9457 problem body, never a 500, never a partial write. After each test the entities
 * its requests aimed at are read back by their owner and must deep-equal their snapshot; a refused
 * create must leave no new entity (nor its marker title); and once every refusing test has run,
 * every stored document of both tenants and their API keys must equal the snapshot from beforeAll.
 */

const MIB = 1024 * 1024;
const HEX24 = 'aaaaaaaaaaaaaaaaaaaaaaaa';

type Field = { pointer: string } | { parameter: string };

/** The answer is the problem `status`, as application/problem+json, without a stack trace. */
function expectProblem(res: request.Response, status: number | number[]): void {
  const statuses = Array.isArray(status) ? status : [status];
  // One assertion over everything, so a failure shows the status, media type and body together.
  expect({ status: res.status, contentType: res.headers['content-type'], body: res.body }).toEqual({
    status: statuses.includes(res.status) ? res.status : status,
    contentType: expect.stringMatching(/^application\/problem\+json/),
    body: expect.objectContaining({
      type: expect.stringMatching(/^urn:entia:problem:[a-z-]+$/),
      title: expect.any(String),
      status: res.status,
      detail: expect.any(String),
    }),
  });
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\.[jt]s:\d+/);
  const errors: unknown = res.body.errors;
  if (errors !== undefined) {
    expect(Array.isArray(errors)).toBe(true);
    for (const error of errors as Record<string, unknown>[]) {
      expect(typeof error.message).toBe('string');
      expect(typeof error.pointer === 'string' || typeof error.parameter === 'string').toBe(true);
    }
  }
}

/** A 400 whose `errors` name `field` (a JSON pointer into the body, or a query parameter). */
function expectFieldError(res: request.Response, field: Field): void {
  expectProblem(res, 400);
  expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining(field)]));
}

function expectUnpolluted(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
  expect(Object.prototype.hasOwnProperty.call(Array.prototype, 'polluted')).toBe(false);
}

describe('hostile input (SPEC §2, §3, §7, §11)', () => {
  let api: TestApi;
  let t: TestTenant;
  let other: TestTenant;
  let bookType: string;
  let author: string;
  /** A book with one value of most types, in `t`. */
  let target: { _id: string; properties: Record<string, { _id: string }[]> };
  let person: Person;
  /** An entity of `other`, owned by other.owner. */
  let foreign: { _id: string; properties: Record<string, { _id: string }[]> };

  beforeAll(async () => {
    // A high limit: this file sends a few hundred requests from one client within a minute.
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    [t, other] = await Promise.all([testTenant(api), testTenant(api)]);
    bookType = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'summary', type: 'text' },
      { name: 'pages', type: 'number' },
      { name: 'available', type: 'boolean' },
      { name: 'published', type: 'date' },
      { name: 'updated', type: 'datetime' },
      { name: 'author', type: 'reference' },
      { name: 'scan', type: 'file' },
      { name: 'tag', type: 'string', list: true },
      { name: 'label', type: 'string', multilingual: true },
    ]);
    author = (await t.create([{ type: '_type', reference: t.types.person }, { type: 'name', string: 'Author' }])).body._id;
    const created = await t.create([
      { type: '_type', reference: bookType },
      { type: 'title', string: 'original' },
      { type: 'summary', string: 'a summary' },
      { type: 'pages', number: 7 },
      { type: 'available', boolean: true },
      { type: 'published', date: '2024-02-29' },
      { type: 'updated', datetime: '2024-05-01T12:00:00Z' },
      { type: 'author', reference: author },
      { type: 'tag', string: 'a' },
      { type: 'tag', string: 'b' },
      { type: 'label', string: 'Raamat', language: 'et' },
    ]);
    if (created.status !== 201) throw new Error(`target: ${created.status} ${JSON.stringify(created.body)}`);
    target = created.body;
    person = await t.newPerson('Person');
    const otherType = await other.defineType('thing', [{ name: 'title', type: 'string' }]);
    const made = await other.create([{ type: '_type', reference: otherType }, { type: 'title', string: 'foreign' }]);
    if (made.status !== 201) throw new Error(`foreign: ${made.status} ${JSON.stringify(made.body)}`);
    foreign = made.body;
    for (const name of ['target', 'person', 'author', 'foreign'] as const) reads.set(name, await readBack(name));
    for (const tenant of [t, other]) knownIds.set(tenant, await idsOf(tenant));
    baseline = await everything();
  });
  afterAll(async () => {
    await Promise.all([t?.close(), other?.close()]);
    await api?.close();
  });

  const entityPath = (id: string, db = t.db) => `/api/${db}/entity/${id}`;
  const propertyPath = (id: string, db = t.db) => `/api/${db}/property/${id}`;
  const asOwner = (req: request.Test, who: Person = t.owner) => req.set('Authorization', who.auth);
  const postTarget = (values: unknown) => asOwner(request(api.app).post(entityPath(target._id))).send(values as object);
  const createBook = (values: unknown[]) => t.create([{ type: '_type', reference: bookType }, ...(values as object[])]);
  const postRaw = (path: string, body: string | Buffer, contentType = 'application/json') =>
    asOwner(request(api.app).post(path)).set('Content-Type', contentType).send(body);
  /** Exactly these bytes and headers over a real socket (supertest may re-encode a Buffer body). */
  const socketPost = async (path: string, body: Buffer, headers: Record<string, string>) =>
    asResponse(await rawPost(`${t.baseUrl}${path}`, t.owner.auth, body, headers));

  // --- the "nothing changed" guard ------------------------------------------------------------

  /** The entities a request could aim at; their snapshots, as their owner reads them, are taken in beforeAll. */
  type Watched = 'target' | 'person' | 'author' | 'foreign';
  const watched = (name: Watched): [TestTenant, string] =>
    ({ target: [t, target._id], person: [t, person.id], author: [t, author], foreign: [other, foreign._id] })[name] as [TestTenant, string];
  const reads = new Map<Watched, unknown>();

  async function readBack(name: Watched): Promise<unknown> {
    const [tenant, id] = watched(name);
    const res = await request(api.app).get(entityPath(id, tenant.db)).set('Authorization', tenant.owner.auth);
    expect(res.status).toBe(200);
    return res.body.entity;
  }

  /** The entities this test's requests aimed at: read back once the test is over. */
  const aimedAt = new Set<Watched>();

  /**
   * Runs `action` (a request that must be refused) and notes the `watch`ed entities: after the
   * test each is read back by its owner and must deep-equal its snapshot from beforeAll. (A
   * refused create watches nothing: `expectNoNewEntity` checks that no entity appeared.)
   */
  async function untouched(action: () => PromiseLike<request.Response>, watch: Watched[] = ['target']): Promise<request.Response> {
    const res = await action();
    for (const name of watch) aimedAt.add(name);
    expectUnpolluted();
    return res;
  }

  afterEach(async () => {
    const names = [...aimedAt];
    aimedAt.clear();
    const after = await Promise.all(names.map(readBack));
    const before = names.map((name) => reads.get(name));
    names.forEach((name, i) => reads.set(name, after[i])); // one stray write fails one test, not every later one
    expect(Object.fromEntries(names.map((name, i) => [name, after[i]]))).toEqual(Object.fromEntries(names.map((name, i) => [name, before[i]])));
  });

  const entities = (tenant: TestTenant) => api.deps.store.database(tenant.db).collection('entity');
  /** Ids of every entity of each tenant, from beforeAll. */
  const knownIds = new Map<TestTenant, string[]>();
  const idsOf = async (tenant: TestTenant) =>
    (await entities(tenant).find({}, { projection: { _id: 1 } }).toArray()).map((doc) => String(doc._id)).sort();

  /** No entity appeared in (or vanished from) `tenant`; none carries `title` (a refused create's marker). */
  async function expectNoNewEntity(tenant: TestTenant = t, title?: string): Promise<void> {
    const docs = await entities(tenant).find({}, { projection: { _id: 1, 'title.string': 1 } }).toArray();
    const ids = docs.map((doc) => String(doc._id)).sort();
    const known = knownIds.get(tenant);
    knownIds.set(tenant, ids);
    const marked = title === undefined ? [] : docs.filter((doc) => JSON.stringify(doc).includes(title));
    expect({ ids, marked }).toEqual({ ids: known, marked: [] });
  }

  /** A title no entity has: after a refused create, no entity may carry it. */
  let markers = 0;
  const marker = () => `hostile-marker-${process.pid}-${++markers}-${Date.now()}`;

  /** Everything stored for both tenants, and their API keys: compared once at the end. */
  const everything = async () => ({
    t: await entities(t).find({}).sort({ _id: 1 }).toArray(),
    other: await entities(other).find({}).sort({ _id: 1 }).toArray(),
    keys: await api.deps.store.control.collection('api_keys').find({ db: { $in: [t.db, other.db] } }).sort({ _id: 1 }).toArray(),
  });
  let baseline: unknown;

  /**
   * Sends `bad` (a value item) both to an existing entity after a good value (index 1), and in a
   * create after `_type` and a good marked title (index 2), expecting 400 naming `/<index><field>`.
   */
  async function refusedEverywhere(bad: unknown, field: string): Promise<void> {
    const update = await untouched(() => postTarget([{ type: 'title', string: 'changed' }, bad]));
    expectFieldError(update, { pointer: `/1${field}` });
    const title = marker();
    const create = await untouched(() => createBook([{ type: 'title', string: title }, bad]), []);
    expectFieldError(create, { pointer: `/2${field}` });
    await expectNoNewEntity(t, title);
  }

  // --- value fields -----------------------------------------------------------------------------

  describe('value fields that do not fit the definition: 400, nothing written', () => {
    it.each<[string, object, string]>([
      ['wrong value field (string for a number)', { type: 'pages', string: '12' }, '/string'],
      ['wrong value field (number for a string)', { type: 'title', number: 1 }, '/number'],
      ['wrong value field (string for a reference)', { type: 'author', string: HEX24 }, '/string'],
      ['wrong value field (date for a datetime)', { type: 'updated', date: '2024-01-01' }, '/date'],
      ['a file field on a string', { type: 'title', string: 'x', filename: 'a.txt' }, '/filename'],
      ['two value fields', { type: 'title', string: 'a', number: 1 }, '/number'],
      ['two value fields, both of the wrong kind', { type: 'title', boolean: true, date: '2024-01-01' }, '/boolean'],
      ['missing value field', { type: 'title' }, '/string'],
      ['missing value field on a reference', { type: 'author' }, '/reference'],
      ['a file missing filesize', { type: 'scan', filename: 'a.pdf', filetype: 'application/pdf' }, '/filesize'],
      ['null as the value', { type: 'title', string: null }, '/string'],
      ['number as a numeric string', { type: 'pages', number: '12' }, '/number'],
      ['boolean as a string', { type: 'available', boolean: 'true' }, '/boolean'],
      ['boolean as 1', { type: 'available', boolean: 1 }, '/boolean'],
      ['string as an array', { type: 'title', string: ['a', 'b'] }, '/string'],
      ['a negative filesize', { type: 'scan', filename: 'a.pdf', filesize: -1, filetype: 'application/pdf' }, '/filesize'],
      ['a fractional filesize', { type: 'scan', filename: 'a.pdf', filesize: 1.5, filetype: 'application/pdf' }, '/filesize'],
      ['a filetype that is no MIME type', { type: 'scan', filename: 'a.pdf', filesize: 1, filetype: 'pdf\r\nX-Injected: 1' }, '/filetype'],
      ['language on a plain property', { type: 'title', string: 'x', language: 'en' }, '/language'],
      ['a malformed language', { type: 'label', string: 'x', language: 'en_US; drop' }, '/language'],
      ['no type at all', { string: 'x' }, '/type'],
      ['an unknown property', { type: 'colour', string: 'red' }, '/type'],
    ])('%s', async (_name, bad, field) => {
      await refusedEverywhere(bad, field);
    });
  });

  // --- $-operators, $-names, prototype keys ---------------------------------------------------

  describe('query-operator objects and $-names where data is expected: 400 naming the field', () => {
    it.each<[string, object, string]>([
      ['{"string": {"$gt": ""}}', { type: 'title', string: { $gt: '' } }, '/string'],
      ['{"string": {"$ne": null}} on text', { type: 'summary', string: { $ne: null } }, '/string'],
      ['{"number": {"$gt": 0}}', { type: 'pages', number: { $gt: 0 } }, '/number'],
      ['{"reference": {"$ne": null}}', { type: 'author', reference: { $ne: null } }, '/reference'],
      ['{"reference": {"$oid": …}}', { type: 'author', reference: { $oid: HEX24 } }, '/reference'],
      ['{"reference": [id]}', { type: 'author', reference: [HEX24] }, '/reference'],
      ['{"type": {"$regex": ".*"}}', { type: { $regex: '.*' }, string: 'x' }, '/type'],
      ['{"type": ["title"]}', { type: ['title'], string: 'x' }, '/type'],
      ['{"_id": ["a"]}', { _id: ['a'], type: 'title', string: 'x' }, '/_id'],
      ['{"_id": {"$exists": true}}', { _id: { $exists: true }, type: 'title', string: 'x' }, '/_id'],
      ['{"date": {"$lt": "2030-01-01"}}', { type: 'published', date: { $lt: '2030-01-01' } }, '/date'],
      ['{"datetime": {"$gte": …}}', { type: 'updated', datetime: { $gte: '2020-01-01T00:00:00Z' } }, '/datetime'],
      ['{"language": {"$ne": null}}', { type: 'label', string: 'x', language: { $ne: null } }, '/language'],
      ['{"type": "$where"}', { type: '$where', string: 'x' }, '/type'],
      ['{"type": "$set"}', { type: '$set', string: 'x' }, '/type'],
      ['{"type": "title.string"} (a dotted path)', { type: 'title.string', string: 'x' }, '/type'],
      ['{"type": "_id"}', { type: '_id', reference: HEX24 }, '/type'],
      ['{"type": "__v"} (a stored bookkeeping field)', { type: '__v', number: 1 }, '/type'],
      ['{"type": "__read"}', { type: '__read', string: 'public' }, '/type'],
      ['{"type": "__proto__"}', { type: '__proto__', string: 'x' }, '/type'],
      ['{"type": "constructor"} (not defined by the type)', { type: 'constructor', string: 'x' }, '/type'],
      ['{"type": "toString"}', { type: 'toString', string: 'x' }, '/type'],
      ['{"type": "hasOwnProperty"}', { type: 'hasOwnProperty', string: 'x' }, '/type'],
      ['{"type": "title", "$set": {...}}', { type: 'title', string: 'x', $set: { title: 'y' } }, '/$set'],
      ['{"type": "title", "$where": "..."}', { type: 'title', string: 'x', $where: 'sleep(1000)' }, '/$where'],
      ['{"type": "title", "created": {...}}', { type: 'title', string: 'x', created: { at: '2000-01-01T00:00:00Z', by: HEX24 } }, '/created'],
      ['{"type": "title", "__v": 0}', { type: 'title', string: 'x', __v: 0 }, '/__v'],
    ])('%s', async (_name, bad, field) => {
      await refusedEverywhere(bad, field);
    });
  });

  describe('prototype pollution attempts', () => {
    it.each<[string, string, Field]>([
      ['a "__proto__" key in a value', '[{"type":"title","string":"x","__proto__":{"polluted":"yes"}}]', { pointer: '/0/__proto__' }],
      ['a "constructor" key in a value', '[{"type":"title","string":"x","constructor":{"prototype":{"polluted":"yes"}}}]', { pointer: '/0/constructor' }],
      ['a "prototype" key in a value', '[{"type":"title","string":"x","prototype":{"polluted":"yes"}}]', { pointer: '/0/prototype' }],
      ['"__proto__" as the value', '[{"type":"title","string":{"__proto__":{"polluted":"yes"}}}]', { pointer: '/0/string' }],
      ['a body that is a "__proto__" object', '{"__proto__":{"polluted":"yes"}}', { pointer: '' }],
      ['a body that is a "constructor" object', '{"constructor":{"prototype":{"polluted":"yes"}}}', { pointer: '' }],
      ['a "__proto__" item', '[{"__proto__":{"polluted":"yes","type":"title","string":"x"}}]', { pointer: '/0/type' }],
    ])('%s: 400, and Object.prototype stays clean', async (_name, json, field) => {
      const update = await untouched(() => postRaw(entityPath(target._id), json));
      expectFieldError(update, field);
      const create = await untouched(() => postRaw(`/api/${t.db}/entity`, json));
      expectProblem(create, 400);
      expectUnpolluted();
    });

    it.each([
      ['__proto__[polluted]=yes', '__proto__[polluted]'],
      ['constructor[prototype][polluted]=yes', 'constructor[prototype][polluted]'],
      ['__proto__=x', '__proto__'],
    ])('a query string %s on GET: 400 naming it, nothing polluted', async (query, parameter) => {
      const res = await untouched(() => asOwner(request(api.app).get(`${entityPath(target._id)}?${query}`)));
      expectFieldError(res, { parameter });
      expectUnpolluted();
    });
  });

  describe('_api_key takes no value at all', () => {
    it.each<[string, object, string]>([
      ['a filename', { type: '_api_key', filename: 'key.txt' }, '/0/filename'],
      ['a filesize', { type: '_api_key', filesize: 1 }, '/0/filesize'],
      ['a language', { type: '_api_key', language: 'en' }, '/0/language'],
      ['a string', { type: '_api_key', string: 'my-own-key-0123456789' }, '/0/string'],
    ])('with %s: 400, and no key is generated', async (_name, bad, pointer) => {
      const res = await untouched(() => asOwner(request(api.app).post(entityPath(person.id))).send([bad]), ['person']);
      expectFieldError(res, { pointer });
    });
  });

  // --- sizes and shapes -----------------------------------------------------------------------

  describe('sizes and body shapes', () => {
    it('a string over 10 000 characters: 400 naming it', async () => {
      await refusedEverywhere({ type: 'title', string: 'x'.repeat(10_001) }, '/string');
    });

    it('a text over 1 000 000 characters (but under the 1 MiB body limit): 400 naming it', async () => {
      const res = await untouched(() => postTarget([{ type: 'summary', string: 'x'.repeat(1_000_001) }]));
      expectFieldError(res, { pointer: '/0/string' });
    });

    it('a text just over 1 MiB: 413', async () => {
      expectProblem(await untouched(() => postTarget([{ type: 'summary', string: 'x'.repeat(MIB + 1) }])), 413);
      const title = marker();
      const create = await untouched(() => createBook([{ type: 'title', string: title }, { type: 'summary', string: 'x'.repeat(MIB + 1) }]));
      expectProblem(create, 413);
      await expectNoNewEntity(t, title);
    });

    it('a body over 1 MiB made of many small values: 413', async () => {
      const values = Array.from({ length: 1000 }, (_, i) => ({ type: 'tag', string: `${i}-${'y'.repeat(1100)}` }));
      expect(JSON.stringify(values).length).toBeGreaterThan(MIB);
      expectProblem(await untouched(() => postTarget(values)), 413);
    });

    it('a gzip body that inflates past 1 MiB: 413 (the limit applies to the inflated body)', async () => {
      const json = JSON.stringify([{ type: 'summary', string: 'z'.repeat(8 * MIB) }]);
      const gz = gzipSync(json);
      expect(gz.length).toBeLessThan(64 * 1024);
      const res = await untouched(() => socketPost(entityPath(target._id), gz, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }));
      expectProblem(res, 413);
    });

    it('a chunked body (no Content-Length) over 1 MiB: 413', async () => {
      const res = await untouched(async () => asResponse(await chunkedPost(`${t.baseUrl}${entityPath(target._id)}`, t.owner.auth, 2 * MIB)));
      expectProblem(res, 413);
    });

    it('1001 values (over the 1000-item limit): 400', async () => {
      const values = Array.from({ length: 1001 }, (_, i) => ({ type: 'tag', string: `t${i}` }));
      expectFieldError(await untouched(() => postTarget(values)), { pointer: '' });
      const title = marker();
      const create = await untouched(() => createBook([{ type: 'title', string: title }, ...values.slice(1)]));
      expectFieldError(create, { pointer: '' });
      await expectNoNewEntity(t, title);
    });

    it.each<[string, string]>([
      ['an empty array', '[]'],
      ['an object instead of an array', '{"type":"title","string":"x"}'],
      ['an array-like object', '{"0":{"type":"title","string":"x"},"length":1}'],
      ['null', 'null'],
      ['a string', '"[{\\"type\\":\\"title\\",\\"string\\":\\"x\\"}]"'],
      ['a number', '42'],
      ['true', 'true'],
    ])('%s as the body: 400', async (_name, json) => {
      expectFieldError(await untouched(() => postRaw(entityPath(target._id), json)), { pointer: '' });
      expectFieldError(await untouched(() => postRaw(`/api/${t.db}/entity`, json)), { pointer: '' });
    });

    it.each<[string, unknown]>([
      ['null', null],
      ['an array', ['title', 'x']],
      ['a string', 'title'],
      ['a number', 42],
    ])('an item that is %s: 400 naming it', async (_name, item) => {
      // After a good value (update) or after _type (create): the bad item is /1 either way.
      expectFieldError(await untouched(() => postTarget([{ type: 'title', string: 'changed' }, item])), { pointer: '/1' });
      expectFieldError(await untouched(() => createBook([item]), []), { pointer: '/1' });
      await expectNoNewEntity(t);
    });

    it('a deeply nested body (100 000 levels, under the size limit): 400, not a crash', async () => {
      const depth = 100_000;
      const json = `[${'['.repeat(depth)}${']'.repeat(depth)}]`;
      expectProblem(await untouched(() => postRaw(entityPath(target._id), json)), 400);
    });

    it('a value with 10 000 unknown keys: 400 quickly', async () => {
      const item: Record<string, string> = { type: 'title', string: 'x' };
      for (let i = 0; i < 10_000; i++) item[`k${i}`] = '';
      const started = Date.now();
      const res = await untouched(() => postTarget([item]));
      expectProblem(res, 400);
      expect(Date.now() - started).toBeLessThan(5000);
    });
  });

  // --- ids --------------------------------------------------------------------------------------

  describe('invalid ids', () => {
    const malformed = [
      'not-an-id',
      'AAAAAAAAAAAAAAAAAAAAAAAA',
      HEX24.slice(1),
      `${HEX24}a`,
      'gggggggggggggggggggggggg',
      encodeURIComponent('$where'),
      encodeURIComponent('{"$ne":null}'),
      encodeURIComponent(`ObjectId("${HEX24}")`),
      '%00',
      '%2e%2e',
      `${HEX24}%00`,
      encodeURIComponent(' '.repeat(24)),
      'x'.repeat(65),
      'f'.repeat(1000),
      'x'.repeat(8000),
    ];

    it.each(malformed.map((id) => [id.length > 40 ? `${id.slice(0, 12)}… (${id.length} chars)` : id, id]))(
      'malformed entity id in the path %s: 404 on GET, POST and DELETE',
      async (_label, id) => {
        expectProblem(await untouched(() => asOwner(request(api.app).get(entityPath(id)))), 404);
        expectProblem(await untouched(() => asOwner(request(api.app).post(entityPath(id))).send([{ type: 'title', string: 'x' }])), 404);
        expectProblem(await untouched(() => asOwner(request(api.app).delete(entityPath(id)))), 404);
      },
    );

    it.each(malformed.map((id) => [id.length > 40 ? `${id.slice(0, 12)}… (${id.length} chars)` : id, id]))(
      'malformed value id in the path %s: 404 on GET and DELETE /property',
      async (_label, id) => {
        expectProblem(await untouched(() => asOwner(request(api.app).get(propertyPath(id)))), 404);
        expectProblem(await untouched(() => asOwner(request(api.app).delete(propertyPath(id)))), 404);
      },
    );

    it.each([
      ['admin'],
      ['local'],
      ['config'],
      ['auth'],
      ['jobs'],
      ['NoSuchDb'],
      ['no$such'],
      ['x'.repeat(65)],
      ['d'.repeat(2000)],
    ].map(([db]) => [db!.length > 40 ? `${db!.slice(0, 6)}… (${db!.length} chars)` : db!, db!]))('database %s in the path: 404', async (_label, db) => {
      expectProblem(await untouched(() => asOwner(request(api.app).get(entityPath(target._id, db)))), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).post(`/api/${db}/entity`)).send([{ type: '_type', reference: bookType }])), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).post(entityPath(target._id, db))).send([{ type: 'title', string: 'x' }])), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).delete(propertyPath(target.properties.title![0]!._id, db)))), 404);
    });

    it('the control database in the path: 404', async () => {
      const db = api.deps.config.MONGODB_CONTROL_DB;
      expectProblem(await untouched(() => asOwner(request(api.app).get(entityPath(target._id, db)))), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).post(`/api/${db}/entity`)).send([{ type: 'title', string: 'x' }])), 404);
    });

    it('malformed percent-encoding in the path: 400 (the path cannot be read), not a 500', async () => {
      for (const path of [entityPath('%E0%A4%A'), entityPath('%'), propertyPath('%zz'), `/api/%ff%fe/entity/${HEX24}`]) {
        expectProblem(await untouched(() => asOwner(request(api.app).get(path))), 400);
      }
    });

    it.each<[string, object, string]>([
      ['24 non-hex characters', { type: 'author', reference: 'z'.repeat(24) }, '/reference'],
      ['upper-case hex', { type: 'author', reference: 'A'.repeat(24) }, '/reference'],
      ['23 characters', { type: 'author', reference: HEX24.slice(1) }, '/reference'],
      ['a number', { type: 'author', reference: 123 }, '/reference'],
      ['an empty string', { type: 'author', reference: '' }, '/reference'],
      ['an ObjectId() call', { type: 'author', reference: `ObjectId("${HEX24}")` }, '/reference'],
    ])('malformed reference in the body (%s): 400 naming it', async (_name, bad, field) => {
      await refusedEverywhere(bad, field);
    });

    it.each<[string, object, string]>([
      ['not hex', { _id: 'not-an-id', type: 'title', string: 'x' }, '/_id'],
      ['a number', { _id: 1, type: 'title', string: 'x' }, '/_id'],
      ['null', { _id: null, type: 'title', string: 'x' }, '/_id'],
    ])('malformed value _id in the body (%s): 400 naming it', async (_name, bad, field) => {
      await refusedEverywhere(bad, field);
    });

    it('a reference to a missing entity: 400 naming it', async () => {
      await refusedEverywhere({ type: 'author', reference: 'f'.repeat(24) }, '/reference');
    });

    it('an entity of ANOTHER database in the path: 404 on GET, POST, DELETE', async () => {
      const both: Watched[] = ['target', 'foreign'];
      expectProblem(await untouched(() => asOwner(request(api.app).get(entityPath(foreign._id))), both), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).post(entityPath(foreign._id))).send([{ type: 'title', string: 'x' }]), both), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).delete(entityPath(foreign._id))), both), 404);
      const value = foreign.properties.title![0]!._id;
      expectProblem(await untouched(() => asOwner(request(api.app).get(propertyPath(value))), both), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).delete(propertyPath(value))), both), 404);
      await expectNoNewEntity(other);
    });

    it('an entity of ANOTHER database as a reference: 400 naming it', async () => {
      await refusedEverywhere({ type: 'author', reference: foreign._id }, '/reference');
      await refusedEverywhere({ type: '_parent', reference: foreign._id }, '/reference');
      await refusedEverywhere({ type: '_viewer', reference: other.owner.id }, '/reference');
    });

    it('a _type from ANOTHER database on create: 400 naming it', async () => {
      const res = await untouched(() => t.create([{ type: '_type', reference: other.types.entity }]));
      expectFieldError(res, { pointer: '/0/reference' });
      await expectNoNewEntity(t);
    });

    it('a value _id of another entity, another property, another database, or the entity itself: 400', async () => {
      await refusedEverywhere({ _id: author, type: 'title', string: 'x' }, '/_id');
      await refusedEverywhere({ _id: target.properties.tag![0]!._id, type: 'title', string: 'x' }, '/_id');
      await refusedEverywhere({ _id: foreign.properties.title![0]!._id, type: 'title', string: 'x' }, '/_id');
      await refusedEverywhere({ _id: target._id, type: 'title', string: 'x' }, '/_id');
      await refusedEverywhere({ _id: 'f'.repeat(24), type: 'title', string: 'x' }, '/_id');
      // A value of the author entity, named on the target.
      const authorName = (await asOwner(request(api.app).get(entityPath(author)))).body.entity.name[0]._id as string;
      const res = await untouched(() => postTarget([{ _id: authorName, type: 'title', string: 'x' }]), ['target', 'author']);
      expectFieldError(res, { pointer: '/0/_id' });
    });
  });

  // --- media types and JSON syntax ----------------------------------------------------------

  describe('bodies that are not JSON', () => {
    const json = JSON.stringify([{ type: 'title', string: 'changed' }]);

    it.each([
      ['text/plain', 'text/plain'],
      ['text/plain with JSON inside', 'text/plain; charset=utf-8'],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['application/xml', 'application/xml'],
      ['application/octet-stream', 'application/octet-stream'],
      ['application/jsonp', 'application/jsonp'],
      ['application/json with an unsupported charset', 'application/json; charset=latin1'],
    ])('%s: 415', async (_name, type) => {
      expectProblem(await untouched(() => postRaw(entityPath(target._id), json, type)), 415);
      expectProblem(await untouched(() => postRaw(`/api/${t.db}/entity`, json, type)), 415);
    });

    it('multipart/form-data: 415', async () => {
      const res = await untouched(() => asOwner(request(api.app).post(entityPath(target._id))).field('type', 'title').field('string', 'changed'));
      expectProblem(res, 415);
      const upload = await untouched(() => asOwner(request(api.app).post(`/api/${t.db}/entity`)).attach('file', Buffer.from(json), 'values.json'));
      expectProblem(upload, 415);
    });

    it('a body without Content-Type: 415', async () => {
      const res = await untouched(() => socketPost(entityPath(target._id), Buffer.from(json), {}));
      expectProblem(res, 415);
    });

    it('an unsupported Content-Encoding: 415', async () => {
      const res = await untouched(() => socketPost(entityPath(target._id), Buffer.from(json), { 'Content-Type': 'application/json', 'Content-Encoding': 'compress' }));
      expectProblem(res, 415);
    });

    it('a gzip Content-Encoding whose body is not gzip: 400', async () => {
      const res = await untouched(() => socketPost(entityPath(target._id), Buffer.from(json), { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }));
      expectProblem(res, 400);
    });

    it.each<[string, string]>([
      ['truncated JSON', '[{"type":"title","string":'],
      ['trailing garbage', `${json}xyz`],
      ['two JSON texts', `${json}${json}`],
      ['a trailing comma', '[{"type":"title","string":"x"},]'],
      ['single quotes', "[{'type':'title','string':'x'}]"],
      ['unquoted keys', '[{type:"title",string:"x"}]'],
      ['a comment', '[/* c */{"type":"title","string":"x"}]'],
      ['NaN', '[{"type":"pages","number":NaN}]'],
      ['Infinity', '[{"type":"pages","number":Infinity}]'],
      ['a hex number', '[{"type":"pages","number":0x10}]'],
      ['a raw control character in a string', '[{"type":"title","string":"a\u0001b"}]'],
      ['an invalid escape', '[{"type":"title","string":"\\x41"}]'],
    ])('invalid JSON with the JSON content type (%s): 400', async (_name, body) => {
      expectProblem(await untouched(() => postRaw(entityPath(target._id), body)), 400);
      expectProblem(await untouched(() => postRaw(`/api/${t.db}/entity`, body)), 400);
    });

    it('JSON with a BOM and trailing garbage: 400', async () => {
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${json}]`)]);
      expectProblem(await untouched(() => postRaw(entityPath(target._id), bom)), 400);
    });

    it('an empty body with the JSON content type: 400', async () => {
      expectProblem(await untouched(() => postRaw(entityPath(target._id), '')), 400);
      expectProblem(await untouched(() => asOwner(request(api.app).post(entityPath(target._id)))), 400);
    });
  });

  // --- numbers and dates -------------------------------------------------------------------

  describe('numbers and dates', () => {
    it.each<[string, string, string]>([
      ['1e400 (Infinity once parsed)', '{"type":"pages","number":1e400}', '/number'],
      ['-1e400', '{"type":"pages","number":-1e400}', '/number'],
      ['a filesize of 1e400', '{"type":"scan","filename":"a.pdf","filesize":1e400,"filetype":"application/pdf"}', '/filesize'],
      ['a filesize of 1e20 (over the maximum)', '{"type":"scan","filename":"a.pdf","filesize":1e20,"filetype":"application/pdf"}', '/filesize'],
    ])('%s: 400 naming the field', async (_name, item, field) => {
      const update = await untouched(() => postRaw(entityPath(target._id), `[{"type":"title","string":"changed"},${item}]`));
      expectFieldError(update, { pointer: `/1${field}` });
      const title = marker();
      const create = await untouched(() =>
        postRaw(`/api/${t.db}/entity`, `[{"type":"_type","reference":"${bookType}"},{"type":"title","string":"${title}"},${item}]`),
        [],
      );
      expectFieldError(create, { pointer: `/2${field}` });
      await expectNoNewEntity(t, title);
    });

    it.each([
      '2024-02-30',
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-04-31',
      '2024-2-3',
      ' 2024-02-03',
      '2024-02-03\n',
      '2024-02-03T00:00:00Z',
      '20240203',
      '+02024-02-03',
      '',
    ])('date %j: 400 naming it', async (date) => {
      await refusedEverywhere({ type: 'published', date }, '/date');
    });

    it.each([
      '2024-05-01T25:00:00Z',
      '2024-05-01T24:00:00Z',
      '2024-05-01T23:60:00Z',
      '2024-05-01T23:59:60Z',
      '2024-02-30T00:00:00Z',
      '2024-05-01T12:00:00',
      '2024-05-01T12:00:00+99:99',
      '2024-05-01T12:00:00+2:00',
      '2024-05-01 12:00:00Z',
      'now',
      '',
      '2024-05-01T12:00:00Z; DROP',
    ])('datetime %j: 400 naming it', async (datetime) => {
      await refusedEverywhere({ type: 'updated', datetime }, '/datetime');
    });
  });

  // --- query strings --------------------------------------------------------------------------

  describe('query strings on GET /api/{db}/entity/{id}', () => {
    it.each<[string, string]>([
      ['props=$where', 'props'],
      ['props=', 'props'],
      ['props=a,,b', 'props'],
      ['props=title.strings', 'props'],
      ['props=title.string.x', 'props'],
      ['props=title.__proto__', 'props'],
      ['props=title,%24where', 'props'],
      ['props=__proto__', 'props'],
      ['props=a&props=b', 'props'],
      ['props=title&props=title', 'props'],
      ['props[]=a', 'props[]'],
      ['props[$ne]=x', 'props[$ne]'],
      ['foo=1', 'foo'],
      ['%24where=1', '$where'],
      ['props=title&limit=5', 'limit'],
    ])('?%s: 400 naming %s', async (query, parameter) => {
      const res = await untouched(() => asOwner(request(api.app).get(`${entityPath(target._id)}?${query}`)));
      expectFieldError(res, { parameter });
    });

    it(`props with ${101} names (over the documented 100): 400 naming props`, async () => {
      const props = Array.from({ length: 101 }, (_, i) => `p${i}`).join(',');
      expectFieldError(await untouched(() => asOwner(request(api.app).get(`${entityPath(target._id)}?props=${props}`))), { parameter: 'props' });
    });
  });

  describe('query strings on GET /api/{db}/entity (the list)', () => {
    const many = (n: number, item: (i: number) => string) => Array.from({ length: n }, (_, i) => item(i));
    it.each<[string, () => string, string]>([
      ['an operator in brackets', () => 'title.string[$ne]=x', 'title.string[$ne]'],
      ['a $-operator', () => 'title.string.$ne=x', 'title.string.$ne'],
      ['an unknown operator', () => 'title.string.where=x', 'title.string.where'],
      ['an operator the type does not take', () => 'title.string.gt=a', 'title.string.gt'],
      ['$where', () => '%24where=1', '$where'],
      ['__proto__ as a property', () => '__proto__.string=x', '__proto__.string'],
      ['constructor as a property no type defines', () => 'constructor.string=x', 'constructor.string'],
      ['a type mismatch with the definition', () => 'title.number=1', 'title.number'],
      ['a malformed reference', () => `_type.reference=${encodeURIComponent('{"$ne":null}')}`, '_type.reference'],
      ['1e400 as a number', () => 'pages.number=1e400', 'pages.number'],
      ['a hex number', () => 'pages.number=0x10', 'pages.number'],
      ['an impossible date', () => 'published.date=2024-02-30', 'published.date'],
      ['an impossible datetime', () => 'updated.datetime.gt=2024-05-01T25:00:00Z', 'updated.datetime.gt'],
      ['exists that is not a boolean', () => 'title.string.exists=maybe', 'title.string.exists'],
      ['in with 1001 values', () => `title.string.in=${many(1001, (i) => `v${i}`).join(',')}`, 'title.string.in'],
      ['an invalid regex', () => `title.string.regex=${encodeURIComponent('/(/')}`, 'title.string.regex'],
      ['a regex flag outside imsu', () => `title.string.regex=${encodeURIComponent('/a/g')}`, 'title.string.regex'],
      ['a regex with lookbehind', () => `title.string.regex=${encodeURIComponent('/(?<=a)b/')}`, 'title.string.regex'],
      ['a regex of 513 characters', () => `title.string.regex=${encodeURIComponent(`/${'a'.repeat(513)}/`)}`, 'title.string.regex'],
      ['a filter given twice', () => 'title.string=a&title.string=b', 'title.string'],
      ['limit given twice', () => 'limit=1&limit=2', 'limit'],
      ['a negative limit', () => 'limit=-1', 'limit'],
      ['a limit over 1000', () => 'limit=1001', 'limit'],
      ['a limit in exponent form', () => 'limit=1e3', 'limit'],
      ['a negative skip', () => 'skip=-1', 'skip'],
      ['a sort by a $-name', () => `sort=${encodeURIComponent('$where')}`, 'sort'],
      ['a sort by an object', () => 'sort[$natural]=1', 'sort[$natural]'],
      ['17 search terms', () => `q=${many(17, (i) => `term${i}`).join('+')}`, 'q'],
      ['props with a $-name', () => `props=${encodeURIComponent('$where')}`, 'props'],
      ['51 filters', () => many(51, (i) => `p${i}.string=x`).join('&'), 'filters'],
    ])('%s: 400 naming the parameter', async (_name, query, parameter) => {
      const res = await untouched(() => asOwner(request(api.app).get(`/api/${t.db}/entity?${query()}`)));
      expectFieldError(res, { parameter });
    });
  });

  // --- authentication confusion ------------------------------------------------------------

  describe('authentication confusion', () => {
    const kid = () => (jwt.decode(t.owner.token, { complete: true }) as { header: { kid: string } }).header.kid;
    const secret = () => api.deps.config.JWT_SECRET;
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

    const headers: [string, () => string][] = [
      ['the API key itself as the token', () => `Bearer ${t.owner.apiKey}`],
      ['garbage', () => 'Bearer garbage'],
      ['three garbage segments', () => 'Bearer a.b.c'],
      ['an empty bearer', () => 'Bearer '],
      ['an empty header', () => ''],
      ['Basic credentials', () => `Basic ${Buffer.from('owner:password').toString('base64')}`],
      ['the token twice', () => `Bearer ${t.owner.token} ${t.owner.token}`],
      ['the token without a scheme', () => t.owner.token],
      ['alg none', () => `Bearer ${b64({ alg: 'none', typ: 'JWT', kid: kid() })}.${b64({ accounts: { [t.db]: t.owner.id }, aud: 'entia' })}.`],
      ['a wrong secret', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, 'not-the-secret-0123456789abcdef', { audience: 'entia', expiresIn: 3600, keyid: kid() })}`],
      ['an expired token', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id }, exp: Math.floor(Date.now() / 1000) - 60 }, secret(), { audience: 'entia', keyid: kid() })}`],
      ['another audience', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, secret(), { audience: 'other', expiresIn: 3600, keyid: kid() })}`],
      ['HS512', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, secret(), { algorithm: 'HS512', audience: 'entia', expiresIn: 3600, keyid: kid() })}`],
      ['an unknown key id', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, secret(), { audience: 'entia', expiresIn: 3600, keyid: 'f'.repeat(64) })}`],
      ['no key id', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, secret(), { audience: 'entia', expiresIn: 3600 })}`],
      ['accounts that are not strings', () => `Bearer ${jwt.sign({ accounts: { [t.db]: { $ne: null } } }, secret(), { audience: 'entia', expiresIn: 3600, keyid: kid() })}`],
      ['a 5000-character token', () => `Bearer ${'a'.repeat(5000)}`],
    ];

    it.each(headers)('Authorization with %s: 401 on GET, POST and DELETE', async (_name, header) => {
      const value = header();
      for (const res of [
        await untouched(() => request(api.app).get(entityPath(target._id)).set('Authorization', value)),
        await untouched(() => request(api.app).post(entityPath(target._id)).set('Authorization', value).send([{ type: 'title', string: 'x' }])),
        await untouched(() => request(api.app).post(`/api/${t.db}/entity`).set('Authorization', value).send([{ type: '_type', reference: bookType }])),
        await untouched(() => request(api.app).delete(entityPath(target._id)).set('Authorization', value)),
      ]) {
        expectProblem(res, 401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
      await expectNoNewEntity(t);
    });

    it('a JWT for database A used on database B: 403 on every route, nothing written', async () => {
      const value = foreign.properties.title![0]!._id;
      const watch: Watched[] = ['foreign'];
      for (const res of [
        await untouched(() => asOwner(request(api.app).get(entityPath(foreign._id, other.db))), watch),
        await untouched(() => asOwner(request(api.app).post(entityPath(foreign._id, other.db))).send([{ type: 'title', string: 'x' }]), watch),
        await untouched(() => asOwner(request(api.app).post(`/api/${other.db}/entity`)).send([{ type: '_type', reference: other.types.entity }, { type: 'name', string: 'x' }]), watch),
        await untouched(() => asOwner(request(api.app).delete(entityPath(foreign._id, other.db))), watch),
        await untouched(() => asOwner(request(api.app).get(propertyPath(value, other.db))), watch),
        await untouched(() => asOwner(request(api.app).delete(propertyPath(value, other.db))), watch),
      ]) {
        expectProblem(res, 403);
      }
      await expectNoNewEntity(other);
    });

    it('an API key of database A exchanged with ?db=B: 401', async () => {
      const res = await request(api.app).get(`/api/auth?db=${other.db}`).set('Authorization', `Bearer ${t.owner.apiKey}`);
      expectProblem(res, 401);
    });

    it.each([
      ['a JWT instead of an API key', () => `Bearer ${t.owner.token}`],
      ['garbage', () => 'Bearer !!!'],
      ['no scheme', () => t.owner.apiKey],
    ])('GET /api/auth with %s: 401', async (_name, header) => {
      expectProblem(await request(api.app).get('/api/auth').set('Authorization', header()), 401);
    });

    it('GET /api/auth with malformed query: 400 naming it', async () => {
      const res = await request(api.app).get('/api/auth?db=$where').set('Authorization', `Bearer ${t.owner.apiKey}`);
      expectFieldError(res, { parameter: 'db' });
    });
  });

  // --- methods and paths --------------------------------------------------------------------

  describe('methods and paths', () => {
    it.each<[string, () => string, string[]]>([
      ['PUT /api/{db}/entity/{id}', () => `put ${entityPath(target._id)}`, ['GET', 'POST', 'DELETE']],
      ['PATCH /api/{db}/entity/{id}', () => `patch ${entityPath(target._id)}`, ['GET', 'POST', 'DELETE']],
      ['PUT /api/{db}/entity', () => `put /api/${t.db}/entity`, ['POST']],
      ['PATCH /api/{db}/entity', () => `patch /api/${t.db}/entity`, ['POST']],
      ['DELETE /api/{db}/entity', () => `delete /api/${t.db}/entity`, ['POST']],
      ['PUT /api/{db}/property/{id}', () => `put ${propertyPath(target.properties.title![0]!._id)}`, ['GET', 'DELETE']],
      ['POST /api/{db}/property/{id}', () => `post ${propertyPath(target.properties.title![0]!._id)}`, ['GET', 'DELETE']],
      ['PATCH /api/{db}/property/{id}', () => `patch ${propertyPath(target.properties.title![0]!._id)}`, ['GET', 'DELETE']],
    ])('%s: 405 with Allow, nothing written', async (_name, line, allowed) => {
      const [method, path] = line().split(' ') as ['put' | 'patch' | 'post' | 'delete', string];
      const res = await untouched(() => asOwner(request(api.app)[method](path)).send([{ type: 'title', string: 'x' }]));
      expectProblem(res, 405);
      const allow = String(res.headers.allow ?? '').split(/,\s*/);
      expect(allow).toEqual(expect.arrayContaining(allowed));
      expect(allow).not.toContain(method.toUpperCase());
    });

    it('very long and odd path segments: 404, never 500', async () => {
      for (const path of [
        `/api/${t.db}/entity/${target._id}/${'x'.repeat(4000)}`,
        `/api/${t.db}/${'e'.repeat(4000)}/${target._id}`,
        `/api/${t.db}/entity/${target._id}/..%2f..%2f`,
        `/api/${t.db}/entity/..%2f${target._id}`,
        `/api/${t.db}/entity/${target._id}%2f`,
      ]) {
        expectProblem(await untouched(() => asOwner(request(api.app).get(path))), 404);
      }
      expectProblem(await untouched(() => asOwner(request(api.app).post(`/api/${'d'.repeat(4000)}/entity`)).send([{ type: 'title', string: 'x' }])), 404);
    });
  });

  // --- afterwards ----------------------------------------------------------------------------

  describe('afterwards', () => {
    it('nothing stored for either tenant changed, and no API key was added or removed', async () => {
      expect(await everything()).toEqual(baseline);
    });
  });

  describe('inputs that are valid but unusual: written exactly, or refused cleanly', () => {
    /** A fresh book to write to, so these writes never touch the watched entities. */
    const scratch = async () => {
      const res = await createBook([{ type: 'title', string: 'scratch' }]);
      expect(res.status).toBe(201);
      return res.body._id as string;
    };

    /**
     * Names such as `constructor` are valid property names (SPEC §2): a type defines them, and
     * writing and reading them must never reach Object.prototype.
     */
    it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
      'a property named %s: defined; its values written and read back, never a 500',
      async (name) => {
        const typeRes = await t.create([
          { type: '_type', reference: t.types.entity },
          { type: 'name', string: `odd_${name}` },
        ]);
        expect(typeRes.status).toBe(201);
        const typeId: string = typeRes.body._id;
        const definition = await t.create([
          { type: '_type', reference: t.types.property },
          { type: '_parent', reference: typeId },
          { type: 'name', string: name },
          { type: 'type', string: 'string' },
        ]);
        expect({ status: definition.status, body: definition.body }).toMatchObject({ status: 201 });
        const created = await t.create([{ type: '_type', reference: typeId }, { type: name, string: 'first' }]);
        expect({ status: created.status, body: created.body }).toMatchObject({ status: 201 });
        const id: string = created.body._id;
        const updated = await asOwner(request(api.app).post(entityPath(id))).send([{ type: name, string: 'second' }]);
        expect({ status: updated.status, body: updated.body }).toMatchObject({ status: 200 });
        const read = await asOwner(request(api.app).get(`${entityPath(id)}?props=${name}`));
        expect(read.status).toBe(200);
        expect(read.body.entity).toEqual({ _id: id, [name]: [expect.objectContaining({ type: name, string: 'second' })] });
        expectUnpolluted();
      },
    );
    it('a string with a lone surrogate is refused (400), never stored altered', async () => {
      const res = await postRaw(entityPath(await scratch()), '[{"type":"tag","string":"a\\ud800b"}]');
      expectProblem(res, 400);
    });
    /**
     * RFC 8259 §8.1: senders MUST NOT add a byte order mark; receivers MAY ignore one. This API
     * does not: a body with a BOM is refused with 400.
     */
    it('JSON with a byte order mark: 400', async () => {
      const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify([{ type: 'tag', string: 'bom' }]))]);
      const res = await postRaw(entityPath(await scratch()), bom);
      expectProblem(res, 400);
    });

  });

  it('after all of it, the API is still ready and nothing was polluted', async () => {
    const res = await request(api.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ready');
    expectUnpolluted();
    const read = await asOwner(request(api.app).get(entityPath(target._id)));
    expect(read.status).toBe(200);
    expect(read.body.entity).toEqual(reads.get('target'));
  });
});

interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** Enough of a supertest response for the assertions above. */
function asResponse({ status, contentType, text }: RawAnswer): request.Response {
  let body: unknown = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the problem assertions report it
  }
  return { status, headers: { 'content-type': contentType }, text, body } as unknown as request.Response;
}

/** A POST over a real socket, for what supertest cannot send (no Content-Type). */
function rawPost(url: string, auth: string, body: Buffer, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { Authorization: auth, 'Content-Length': String(body.length), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A POST with Transfer-Encoding: chunked and no Content-Length, `total` bytes of valid-looking
 * JSON. The server may answer (413) and close before the whole body is written; the answer counts.
 */
function chunkedPost(url: string, auth: string, total: number): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      url,
      { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } },
      (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text }));
      },
    );
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    req.write('[{"type":"summary","string":"');
    let sent = 0;
    const pump = () => {
      while (sent < total && !answered) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      if (!answered) req.end('"}]');
    };
    pump();
  });
}
