import http from 'node:http';
import request from 'supertest';
import { testApi, type TestApi } from '../support';
import { testTenant, type Person, type TestTenant } from '../tenant';

/**
 * What every hostile-input test file shares (SPEC §2, §3, §7, §11): an API with two tenants, a
 * book with one value of most types, and the guard that every refusal changed nothing. A file calls
 * `useHostileFixture()` in its top `describe`; jest loads this module once per test file, so each
 * file has its own API, tenants and snapshots.
 *
 * Every refusal is a clear 4xx with an RFC 9457 problem body, never a 500, never a partial write.
 * After each test the entities its requests aimed at are read back by their owner and must
 * deep-equal their snapshot; a refused create must leave no new entity (nor its marker title); and
 * `describeAfterwards()` checks that every stored document of both tenants and their API keys
 * equals the snapshot from beforeAll.
 */

export const MIB = 1024 * 1024;
export const HEX24 = 'aaaaaaaaaaaaaaaaaaaaaaaa';

export type Field = { pointer: string } | { parameter: string };

/** The answer is the problem `status`, as application/problem+json, without a stack trace. */
export function expectProblem(res: request.Response, status: number): void {
  // One assertion over everything, so a failure shows the status, media type and body together.
  expect({ status: res.status, contentType: res.headers['content-type'], body: res.body }).toEqual({
    status,
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
export function expectFieldError(res: request.Response, field: Field): void {
  expectProblem(res, 400);
  expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining(field)]));
}

export function expectUnpolluted(): void {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
  expect(Object.prototype.hasOwnProperty.call(Array.prototype, 'polluted')).toBe(false);
}

export let api: TestApi;
export let t: TestTenant;
export let other: TestTenant;
export let bookType: string;
export let author: string;
/** A book with one value of most types, in `t`. */
export let target: { _id: string; properties: Record<string, { _id: string }[]> };
export let person: Person;
/** An entity of `other`, owned by other.owner. */
export let foreign: { _id: string; properties: Record<string, { _id: string }[]> };

/** The API, the tenants and the watched entities, and the "nothing changed" guard after each test. */
export function useHostileFixture(): void {
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
  afterEach(async () => {
    const names = [...aimedAt];
    aimedAt.clear();
    const after = await Promise.all(names.map(readBack));
    const before = names.map((name) => reads.get(name));
    names.forEach((name, i) => reads.set(name, after[i])); // one stray write fails one test, not every later one
    expect(Object.fromEntries(names.map((name, i) => [name, after[i]]))).toEqual(Object.fromEntries(names.map((name, i) => [name, before[i]])));
  });
}

export const entityPath = (id: string, db = t.db) => `/api/${db}/entity/${id}`;
export const propertyPath = (id: string, db = t.db) => `/api/${db}/property/${id}`;
export const asOwner = (req: request.Test, who: Person = t.owner) => req.set('Authorization', who.auth);
export const postTarget = (values: unknown) => asOwner(request(api.app).post(entityPath(target._id))).send(values as object);
export const createBook = (values: unknown[]) => t.create([{ type: '_type', reference: bookType }, ...(values as object[])]);
export const postRaw = (path: string, body: string | Buffer, contentType = 'application/json') =>
  asOwner(request(api.app).post(path)).set('Content-Type', contentType).send(body);
/** Exactly these bytes and headers over a real socket (supertest may re-encode a Buffer body). */
export const socketPost = async (path: string, body: Buffer, headers: Record<string, string>) =>
  asResponse(await rawPost(`${t.baseUrl}${path}`, t.owner.auth, body, headers));

// --- the "nothing changed" guard ------------------------------------------------------------

/** The entities a request could aim at; their snapshots, as their owner reads them, are taken in beforeAll. */
export type Watched = 'target' | 'person' | 'author' | 'foreign';
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
export async function untouched(action: () => PromiseLike<request.Response>, watch: Watched[] = ['target']): Promise<request.Response> {
  const res = await action();
  for (const name of watch) aimedAt.add(name);
  expectUnpolluted();
  return res;
}

const entities = (tenant: TestTenant) => api.deps.store.database(tenant.db).collection('entity');
/** Ids of every entity of each tenant, from beforeAll. */
const knownIds = new Map<TestTenant, string[]>();
const idsOf = async (tenant: TestTenant) =>
  (await entities(tenant).find({}, { projection: { _id: 1 } }).toArray()).map((doc) => String(doc._id)).sort();

/** No entity appeared in (or vanished from) `tenant`; none carries `title` (a refused create's marker). */
export async function expectNoNewEntity(tenant: TestTenant = t, title?: string): Promise<void> {
  const docs = await entities(tenant).find({}, { projection: { _id: 1, 'title.string': 1 } }).toArray();
  const ids = docs.map((doc) => String(doc._id)).sort();
  const known = knownIds.get(tenant);
  knownIds.set(tenant, ids);
  const marked = title === undefined ? [] : docs.filter((doc) => JSON.stringify(doc).includes(title));
  expect({ ids, marked }).toEqual({ ids: known, marked: [] });
}

/** A title no entity has: after a refused create, no entity may carry it. */
let markers = 0;
export const marker = () => `hostile-marker-${process.pid}-${++markers}-${Date.now()}`;

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
export async function refusedEverywhere(bad: unknown, field: string): Promise<void> {
  const update = await untouched(() => postTarget([{ type: 'title', string: 'changed' }, bad]));
  expectFieldError(update, { pointer: `/1${field}` });
  const title = marker();
  const create = await untouched(() => createBook([{ type: 'title', string: title }, bad]), []);
  expectFieldError(create, { pointer: `/2${field}` });
  await expectNoNewEntity(t, title);
}

export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** Enough of a supertest response for the assertions above. */
export function asResponse({ status, contentType, text }: RawAnswer): request.Response {
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
export function chunkedPost(url: string, auth: string, total: number): Promise<RawAnswer> {
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

/**
 * The file's last checks: nothing stored for either tenant changed and no API key was added or
 * removed (unless `writes`: the file's tests write on purpose), the API is still ready, nothing
 * was polluted and the target reads as before.
 */
export function describeAfterwards({ writes = false }: { writes?: boolean } = {}): void {
  if (!writes) {
    describe('afterwards', () => {
      it('nothing stored for either tenant changed, and no API key was added or removed', async () => {
        expect(await everything()).toEqual(baseline);
      });
    });
  }

  it('after all of it, the API is still ready and nothing was polluted', async () => {
    const res = await request(api.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ready');
    expectUnpolluted();
    const read = await asOwner(request(api.app).get(entityPath(target._id)));
    expect(read.status).toBe(200);
    expect(read.body.entity).toEqual(reads.get('target'));
  });
}
