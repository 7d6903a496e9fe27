import { EntiaClient, EntiaError } from '@entia/client';
import { StorageUnavailableError } from '@entia/files';
import { startWorker, type RunningWorker } from '@entia/worker';
import { MongoNetworkError } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from './eventually';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/**
 * POST /api/{db}/entity/{id}/duplicate (issue 16; docs/decisions.md "Duplicate") against the real
 * stack: what a copy holds, who may make one, file objects of its own, hostile input, all or
 * nothing (also when the insert fails half-way), and duplicates in parallel.
 */

interface Value {
  _id: string;
  type: string;
  /** On a holder of a higher right a lower list also shows: where its value is stored. */
  property_type?: string;
  string?: string;
  number?: number;
  boolean?: boolean;
  reference?: string;
  datetime?: string;
  filename?: string;
  filesize?: number;
  filetype?: string;
  language?: string;
  created: { at: string; by: string };
}
type Entity = { _id: string } & Record<string, Value[]>;
interface Copy {
  _id: string;
  properties: Record<string, Value[]>;
}

const ID = /^[0-9a-f]{24}$/;

describe('duplicate (POST /api/{db}/entity/{id}/duplicate)', () => {
  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let other: TestTenant;
  let book: string;
  let codeDefinition: string;
  let viewer: Person;
  let stranger: Person;

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '100000' });
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    [t, other] = await Promise.all([testTenant(api), testTenant(api)]);
    book = await t.defineType('book', [
      { name: 'title', type: 'string', search: true },
      { name: 'tags', type: 'string', list: true },
      { name: 'blurb', type: 'text', multilingual: true },
      { name: 'pages', type: 'number' },
      { name: 'double', type: 'number', formula: 'pages 2 MULTIPLY' },
      { name: 'friend', type: 'reference' },
      { name: 'photo', type: 'file' },
      { name: 'scan', type: 'file' },
    ]);
    codeDefinition = await t.defineProperty(book, { name: 'code', type: 'string' });
    [viewer, stranger] = await Promise.all([person('Vic Viewer'), person('Stan Stranger')]);
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await other?.close();
    await t?.close();
    await api?.close();
  });

  /** A person readable by everyone signed in (so right lists may name them), signed in with a key of their own. */
  async function person(name: string): Promise<Person> {
    const res = await t.create([{ type: '_type', reference: t.types.person }, { type: 'name', string: name }, { type: '_sharing', string: 'domain' }]);
    expect(res.status).toBe(201);
    const key = await request(api.app).post(`/api/${t.db}/entity/${res.body._id}`).set('Authorization', t.owner.auth).send([{ type: '_api_key' }]);
    const auth = await request(api.app).get('/api/auth').set('Authorization', `Bearer ${key.body.properties[0].string}`);
    return { id: res.body._id, apiKey: '', token: auth.body.token, auth: `Bearer ${auth.body.token}` };
  }

  /** A new book (by the owner unless `by`); returns its id. */
  async function newBook(values: object[] = [], by: Person = t.owner): Promise<string> {
    const res = await t.create([{ type: '_type', reference: book }, ...values], by);
    expect(res.status).toBe(201);
    return res.body._id as string;
  }

  /** POSTs a duplicate as `auth` (null: anonymous, without any Authorization header). */
  const duplicate = (id: string, body?: unknown, auth: string | null = t.owner.auth, db = t.db) => {
    const req = request(api.app).post(`/api/${db}/entity/${id}/duplicate`);
    if (auth !== null) req.set('Authorization', auth);
    if (body === undefined) return req;
    // A string is sent as raw JSON text.
    return typeof body === 'string' ? req.set('Content-Type', 'application/json').send(body) : req.send(body as object);
  };
  const get = async (id: string, auth = t.owner.auth) => request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', auth);
  const entity = async (id: string, auth = t.owner.auth): Promise<Entity> => {
    const res = await get(id, auth);
    expect(res.status).toBe(200);
    return res.body.entity as Entity;
  };
  /** How many books the owner can list: every copy is readable by its owner only, so this counts what was written. */
  const books = async (query = '', auth = t.owner.auth): Promise<number> => {
    const res = await request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}&limit=0${query}`).set('Authorization', auth);
    expect(res.status).toBe(200);
    return res.body.count as number;
  };
  /** Who holds `name` by a value of its own: the holders of higher levels it also lists (`property_type`) aside. */
  const own = (e: Record<string, unknown>, name: string) => ((e[name] as Value[] | undefined) ?? []).filter((v) => v.property_type === undefined);
  const refs = (e: Record<string, unknown>, name: string) => own(e, name).map((v) => v.reference);
  const strings = (values: Value[] | undefined) => (values ?? []).map((v) => v.string);

  describe('what a copy holds', () => {
    it('count 1, without a body: the source\'s values under new ids, the caller its sole owner, a new _created, formulas recomputed', async () => {
      const friend = viewer.id;
      const id = await newBook([
        { type: 'title', string: 'Dune' },
        { type: 'tags', string: 'sf' },
        { type: 'tags', string: 'classic' },
        { type: 'blurb', string: 'Kõrb', language: 'et' },
        { type: 'blurb', string: 'Desert', language: 'en' },
        { type: 'pages', number: 21 },
        { type: 'friend', reference: friend },
        { type: '_sharing', string: 'domain' },
        { type: '_inheritrights', boolean: true },
        { type: '_editor', reference: viewer.id },
      ]);
      const source = await entity(id);
      const res = await duplicate(id);
      expect(res.status).toBe(201);
      expect(res.body.entities).toHaveLength(1);
      const answered = res.body.entities[0] as Copy;
      expect(answered._id).toMatch(ID);
      expect(answered._id).not.toBe(id);

      const copy = await entity(answered._id);
      expect(strings(copy.title)).toEqual(['Dune']);
      expect(strings(copy.tags)).toEqual(['sf', 'classic']);
      expect(copy.blurb!.map((v) => [v.language, v.string])).toEqual([['et', 'Kõrb'], ['en', 'Desert']]);
      expect(copy.pages![0]!.number).toBe(21);
      expect(copy.double![0]!.number).toBe(42);
      expect(copy.double![0]!._id).not.toBe(source.double![0]!._id);
      // A reference labelled with its target's name, as a create labels it.
      expect(copy.friend![0]).toMatchObject({ reference: friend, string: 'Vic Viewer' });
      expect(refs(copy, '_type')).toEqual([book]);
      expect(strings(copy._sharing)).toEqual(['domain']);
      expect(copy._inheritrights![0]!.boolean).toBe(true);
      // Rights: the caller alone owns it; the source's editor is not copied.
      expect(refs(copy, '_owner')).toEqual([t.owner.id]);
      expect(own(copy, '_editor')).toEqual([]);
      expect(copy._created![0]!.reference).toBe(t.owner.id);
      expect(Date.parse(copy._created![0]!.datetime!)).toBeGreaterThan(Date.parse(source._created![0]!.datetime!));
      // Every value is the copy's own: no value id is shared with the source.
      const sourceIds = new Set(Object.entries(source).flatMap(([name, values]) => (name === '_id' ? [] : (values as Value[]).map((v) => v._id))));
      const copyIds = Object.entries(copy).flatMap(([name, values]) => (name === '_id' ? [] : (values as Value[]).map((v) => v._id)));
      expect(copyIds.filter((valueId) => sourceIds.has(valueId))).toEqual([]);
      // The answer shows the values as stored.
      expect(answered.properties.title!.map((v) => v._id)).toEqual(copy.title!.map((v) => v._id));
      // The source is untouched, and a search finds both.
      expect(await entity(id)).toEqual(source);
      const found = await request(api.app).get(`/api/${t.db}/entity?q=dune&_type.reference=${book}`).set('Authorization', t.owner.auth);
      expect(found.body.entities.map((e: Entity) => e._id).sort()).toEqual([id, answered._id].sort());
    });

    it('copies a read-only value (a copy is not a write by the client)', async () => {
      const id = await newBook([{ type: 'code', string: 'R-1' }]);
      const flagged = await request(api.app).post(`/api/${t.db}/entity/${codeDefinition}`).set('Authorization', t.owner.auth).send([{ type: 'readonly', boolean: true }]);
      expect(flagged.status).toBe(200);
      try {
        expect((await t.create([{ type: '_type', reference: book }, { type: 'code', string: 'R-2' }])).status).toBe(400);
        const res = await duplicate(id, {});
        expect(res.status).toBe(201);
        expect(strings((await entity(res.body.entities[0]._id)).code)).toEqual(['R-1']);
      } finally {
        const flag = (await entity(codeDefinition)).readonly![0]!._id;
        expect((await request(api.app).delete(`/api/${t.db}/property/${flag}`).set('Authorization', t.owner.auth)).status).toBe(200);
      }
    });

    it('count 100: 100 distinct entities, each readable and owned by the caller, listed by a _type query', async () => {
      const bytes = randomBytes(1000);
      const created = await t.create([
        { type: '_type', reference: book },
        { type: 'title', string: 'Hundred' },
        { type: 'pages', number: 5 },
        { type: 'photo', filename: 'p.bin', filesize: bytes.length, filetype: 'application/octet-stream' },
      ]);
      const id = created.body._id as string;
      const target = created.body.properties.photo[0].upload;
      expect((await fetch(target.url, { method: 'PUT', headers: target.headers, body: bytes })).status).toBe(200);
      const before = await books();
      const started = performance.now();
      const res = await duplicate(id, { count: 100 });
      const ms = performance.now() - started;
      process.stdout.write(`duplicate of 100 (each with one 1000-byte file object copied) took ${Math.round(ms)} ms\n`);
      expect(res.status).toBe(201);
      // Each copy's file value has its own id and its own object.
      const photos = (res.body.entities as Copy[]).map((copy) => [copy._id, copy.properties.photo![0]!._id] as const);
      expect(new Set(photos.map(([, valueId]) => valueId)).size).toBe(100);
      const stored = await Promise.all(photos.map(([copyId, valueId]) => api.deps.objects.exists(`${t.db}/${copyId}/${valueId}`)));
      expect(stored.every(Boolean)).toBe(true);
      const ids = (res.body.entities as Copy[]).map((copy) => copy._id);
      expect(new Set(ids).size).toBe(100);
      expect(ids).not.toContain(id);
      expect(await books()).toBe(before + 100);
      const listed = await request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}&title.string=Hundred&limit=1000`).set('Authorization', t.owner.auth);
      expect(listed.body.count).toBe(101);
      expect(new Set(listed.body.entities.map((e: Entity) => e._id))).toEqual(new Set([id, ...ids]));
      for (const e of listed.body.entities as Entity[]) expect(refs(e, '_owner')).toEqual([t.owner.id]);
      const reads = await Promise.all(ids.map((copyId) => get(copyId)));
      expect(reads.map((r) => r.status)).toEqual(ids.map(() => 200));
      expect(reads.map((r) => r.body.entity.double[0].number)).toEqual(ids.map(() => 10));
    }, 60_000);

    it('ignoredProperties: the ignored properties are absent from the copies, the rest copied', async () => {
      const id = await newBook([{ type: 'title', string: 'Ignore' }, { type: 'tags', string: 'x' }, { type: 'pages', number: 3 }, { type: '_sharing', string: 'domain' }]);
      const res = await duplicate(id, { count: 2, ignoredProperties: ['tags', 'pages', '_sharing'] });
      expect(res.status).toBe(201);
      for (const { _id } of res.body.entities as Copy[]) {
        const copy = await entity(_id);
        expect(strings(copy.title)).toEqual(['Ignore']);
        expect(copy.tags).toBeUndefined();
        expect(copy.pages).toBeUndefined();
        // Computed from the copy's own values (no pages: 2), not copied from the source (6).
        expect(copy.double!.map((v) => v.number)).toEqual([2]);
        expect(copy._sharing).toBeUndefined();
      }
    });

    it.each<[string, unknown]>([
      ['an unknown property', { ignoredProperties: ['nope'] }],
      ['_type', { ignoredProperties: ['_type'] }],
      ['a known and an unknown one', { ignoredProperties: ['tags', 'nope'] }],
    ])('ignoredProperties naming %s is 400, nothing written', async (_name, body) => {
      const id = await newBook([{ type: 'title', string: 'Refused' }]);
      const before = await books();
      const res = await duplicate(id, body);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.errors.length).toBeGreaterThan(0);
      expect(await books()).toBe(before);
    });

    it('refuses duplicating a type or a property definition (400), nothing written', async () => {
      const types = () => request(api.app).get(`/api/${t.db}/entity?_type.reference=${t.types.entity}&limit=0`).set('Authorization', t.owner.auth);
      const before = (await types()).body.count;
      expect((await duplicate(book)).status).toBe(400);
      expect((await duplicate(codeDefinition)).status).toBe(400);
      expect((await types()).body.count).toBe(before);
    });

    it('refuses a copy a create would refuse: a reference that no longer matches its reference_query (400), nothing written', async () => {
      const shelfType = await t.defineType('shelf', [{ name: 'title', type: 'string' }]);
      const holds = await t.defineProperty(shelfType, { name: 'holds', type: 'reference' });
      const target = await newBook([{ type: 'title', string: 'Held' }]);
      const created = await t.create([{ type: '_type', reference: shelfType }, { type: 'holds', reference: target }]);
      expect(created.status).toBe(201);
      const narrowed = await request(api.app).post(`/api/${t.db}/entity/${holds}`).set('Authorization', t.owner.auth).send([{ type: 'reference_query', string: 'title.string=Other' }]);
      expect(narrowed.status).toBe(200);
      const res = await duplicate(created.body._id, { count: 2 });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(/reference_query/);
      const listed = await request(api.app).get(`/api/${t.db}/entity?_type.reference=${shelfType}&limit=0`).set('Authorization', t.owner.auth);
      expect(listed.body.count).toBe(1);
      // Leaving the reference out, it duplicates.
      expect((await duplicate(created.body._id, { ignoredProperties: ['holds'] })).status).toBe(201);
    });

    it('refuses a copy a create would refuse: a mandatory property the source lacks (400), nothing written', async () => {
      const typeId = await t.defineType('strict', [{ name: 'title', type: 'string' }]);
      const created = await t.create([{ type: '_type', reference: typeId }, { type: 'title', string: 'old' }]);
      await t.defineProperty(typeId, { name: 'isbn', type: 'string', mandatory: true });
      const res = await duplicate(created.body._id, { count: 3 });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body.errors)).toMatch(/isbn/);
      const listed = await request(api.app).get(`/api/${t.db}/entity?_type.reference=${typeId}&limit=0`).set('Authorization', t.owner.auth);
      expect(listed.body.count).toBe(1);
    });
  });

  describe('files', () => {
    const upload = async (value: { upload: { url: string; method: string; headers: Record<string, string> } }, bytes: Buffer) => {
      const res = await fetch(value.upload.url, { method: value.upload.method, headers: value.upload.headers, body: bytes });
      expect(res.status).toBe(200);
    };
    const download = async (valueId: string): Promise<{ status: number; bytes?: Buffer }> => {
      const res = await request(api.app).get(`/api/${t.db}/property/${valueId}?download=true`).set('Authorization', t.owner.auth).redirects(0);
      if (res.status !== 302) return { status: res.status };
      const file = await fetch(res.headers.location!);
      return { status: file.status, bytes: Buffer.from(await file.arrayBuffer()) };
    };

    it('each copy\'s file value has its own id and object with the same bytes; one never uploaded stays without; deleting the source leaves the copies\' bytes', async () => {
      const bytes = randomBytes(3000);
      const created = await t.create([
        { type: '_type', reference: book },
        { type: 'photo', filename: 'cover.png', filesize: bytes.length, filetype: 'image/png' },
        { type: 'scan', filename: 'never.pdf', filesize: 10, filetype: 'application/pdf' },
      ]);
      expect(created.status).toBe(201);
      const id = created.body._id as string;
      const photo = created.body.properties.photo[0];
      await upload(photo, bytes);

      const res = await duplicate(id, { count: 3 });
      expect(res.status).toBe(201);
      const copies = res.body.entities as Copy[];
      const photos = copies.map((copy) => copy.properties.photo![0]!);
      expect(new Set([photo._id, ...photos.map((p) => p._id)]).size).toBe(4);
      for (const copied of photos) {
        expect(copied).toMatchObject({ filename: 'cover.png', filesize: bytes.length, filetype: 'image/png' });
        const got = await download(copied._id);
        expect(got.status).toBe(200);
        expect(got.bytes!.equals(bytes)).toBe(true);
      }
      // The never-uploaded scan: its metadata copied, no object (as for any never-uploaded file).
      for (const copy of copies) {
        const scan = copy.properties.scan![0]!;
        expect(scan).toMatchObject({ filename: 'never.pdf', filesize: 10 });
        expect((await request(api.app).get(`/api/${t.db}/property/${scan._id}`).set('Authorization', t.owner.auth)).status).toBe(200);
        expect((await download(scan._id)).status).toBe(404);
      }

      // The source goes, and the worker removes its objects: the copies keep theirs.
      expect((await request(api.app).delete(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).status).toBe(200);
      await eventually(() => api.deps.objects.exists(`${t.db}/${id}/${photo._id}`), (exists) => !exists);
      for (const copied of photos) {
        const got = await download(copied._id);
        expect(got.status).toBe(200);
        expect(got.bytes!.equals(bytes)).toBe(true);
      }
    }, 60_000);
  });

  describe('rights', () => {
    it('anonymous: 401, nothing written', async () => {
      const id = await newBook([{ type: '_sharing', string: 'public' }]);
      const before = await books();
      const res = await duplicate(id, undefined, null);
      expect(res.status).toBe(401);
      expect(await books()).toBe(before);
    });

    it('no read right: 404 (existence not revealed), nothing written', async () => {
      const id = await newBook([{ type: 'title', string: 'Private' }]);
      const before = await books();
      const res = await duplicate(id, {}, stranger.auth);
      expect(res.status).toBe(404);
      expect(await books()).toBe(before);
    });

    it('a viewer may duplicate: the viewer becomes the sole owner of the copy, the source\'s rights are not copied', async () => {
      const id = await newBook([{ type: 'title', string: 'Viewed' }, { type: '_viewer', reference: viewer.id }]);
      const res = await duplicate(id, {}, viewer.auth);
      expect(res.status).toBe(201);
      const copyId = res.body.entities[0]._id as string;
      const copy = await entity(copyId, viewer.auth);
      expect(refs(copy, '_owner')).toEqual([viewer.id]);
      expect(own(copy, '_viewer')).toEqual([]);
      expect(copy._created![0]!.reference).toBe(viewer.id);
      // The source's owner holds no right on it.
      expect((await get(copyId)).status).toBe(404);
      // The viewer owns it: may write and delete it.
      expect((await request(api.app).post(`/api/${t.db}/entity/${copyId}`).set('Authorization', viewer.auth).send([{ type: 'title', string: 'Mine' }])).status).toBe(200);
    });

    it('_parent where the caller lacks _expander: 403, nothing written; with _parent ignored: 201 without it', async () => {
      const parent = await newBook([{ type: 'title', string: 'Parent' }, { type: '_viewer', reference: viewer.id }]);
      const id = await newBook([{ type: 'title', string: 'Child' }, { type: '_parent', reference: parent }, { type: '_viewer', reference: viewer.id }]);
      const children = () => books(`&_parent.reference=${parent}`);
      expect(await children()).toBe(1);
      const refused = await duplicate(id, { count: 5 }, viewer.auth);
      expect(refused.status).toBe(403);
      expect(await children()).toBe(1);
      const mine = () => books('', viewer.auth);
      const before = await mine();
      const res = await duplicate(id, { ignoredProperties: ['_parent'] }, viewer.auth);
      expect(res.status).toBe(201);
      expect((await entity(res.body.entities[0]._id, viewer.auth))._parent).toBeUndefined();
      expect(await mine()).toBe(before + 1);
      // The owner (expander and more on the parent) duplicates it with its parent.
      const owned = await duplicate(id, {});
      expect(owned.status).toBe(201);
      expect(refs(await entity(owned.body.entities[0]._id), '_parent')).toEqual([parent]);
    });

    it('inherited rights are not copied but recomputed by the worker from the copied _parent and _inheritrights', async () => {
      const parent = await newBook([{ type: 'title', string: 'Shared parent' }, { type: '_viewer', reference: viewer.id }]);
      const id = await newBook([{ type: 'title', string: 'Inheriting' }, { type: '_parent', reference: parent }, { type: '_inheritrights', boolean: true }]);
      await eventually(() => get(id, viewer.auth), (res) => res.status === 200);
      const res = await duplicate(id, {});
      expect(res.status).toBe(201);
      const copyId = res.body.entities[0]._id as string;
      // The answer holds no right but the caller's ownership: the inherited viewer comes from the worker.
      expect(res.body.entities[0].properties._viewer).toBeUndefined();
      const seen = await eventually(() => get(copyId, viewer.auth), (r) => r.status === 200);
      expect(refs(seen.body.entity, '_viewer')).toEqual([viewer.id]);
      expect((seen.body.entity._viewer as (Value & { inherited?: true })[])[0]!.inherited).toBe(true);
    }, 60_000);

    it('a reference the caller cannot read: 400 (a copy the caller could not have created), nothing written', async () => {
      const secret = await newBook([{ type: 'title', string: 'Secret' }]);
      const id = await newBook([{ type: 'friend', reference: secret }, { type: '_viewer', reference: viewer.id }]);
      const before = await books('', viewer.auth);
      const res = await duplicate(id, {}, viewer.auth);
      expect(res.status).toBe(400);
      expect(await books('', viewer.auth)).toBe(before);
    });
  });

  describe('hostile input: a clear 4xx, nothing written', () => {
    let source: string;
    let before: number;
    beforeAll(async () => {
      source = await newBook([{ type: 'title', string: 'Target' }]);
    });
    beforeEach(async () => {
      before = await books();
    });
    afterEach(async () => {
      expect(await books()).toBe(before);
    });

    it.each<[string, unknown]>([
      ['count 0', { count: 0 }],
      ['count 101', { count: 101 }],
      ['count "5"', { count: '5' }],
      ['count 1.5', { count: 1.5 }],
      ['a negative count', { count: -1 }],
      ['count null', { count: null }],
      ['ignoredProperties not an array', { ignoredProperties: 'tags' }],
      ['ignoredProperties of non-strings', { ignoredProperties: [1, {}] }],
      ['__proto__ in ignoredProperties', { ignoredProperties: ['__proto__'] }],
      ['constructor in ignoredProperties', { ignoredProperties: ['constructor'] }],
      ['$where in ignoredProperties', { ignoredProperties: ['$where'] }],
      ['10000 names', { ignoredProperties: Array.from({ length: 10_000 }, (_, i) => `p${i}`) }],
      ['an extra body key', { count: 1, extra: true }],
      ['an array body', [{ count: 1 }]],
      ['a JSON string body', '"x"'],
    ])('%s: 400', async (_name, body) => {
      const res = await duplicate(source, body);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    });

    it('a __proto__ key in the body: 400', async () => {
      const res = await request(api.app)
        .post(`/api/${t.db}/entity/${source}/duplicate`)
        .set('Authorization', t.owner.auth)
        .set('Content-Type', 'application/json')
        .send('{"__proto__": {"count": 5}, "count": 2}');
      expect(res.status).toBe(400);
    });

    it.each<[string, () => string]>([
      ['a malformed id', () => 'not-an-id'],
      ['an unknown id', () => '0123456789abcdef01234567'],
    ])('%s: 404', async (_name, id) => {
      expect((await duplicate(id(), {})).status).toBe(404);
    });

    it('another tenant\'s entity id: 404 here; its own database refuses this tenant\'s token (403)', async () => {
      const created = await other.create([{ type: '_type', reference: other.types.person }, { type: 'name', string: 'Elsewhere' }]);
      expect(created.status).toBe(201);
      expect((await duplicate(created.body._id, {})).status).toBe(404);
      expect((await duplicate(created.body._id, {}, t.owner.auth, other.db)).status).toBe(403);
    });

    it('a body that is not JSON: 415', async () => {
      const res = await request(api.app).post(`/api/${t.db}/entity/${source}/duplicate`).set('Authorization', t.owner.auth).set('Content-Type', 'text/plain').send('count=5');
      expect(res.status).toBe(415);
    });

    it('malformed JSON: 400', async () => {
      const res = await request(api.app).post(`/api/${t.db}/entity/${source}/duplicate`).set('Authorization', t.owner.auth).set('Content-Type', 'application/json').send('{"count": ');
      expect(res.status).toBe(400);
    });
  });

  describe('all or nothing', () => {
    it('Idempotency-Key: a repeat returns the same copies and writes nothing more', async () => {
      const id = await newBook([{ type: 'title', string: 'Once' }]);
      const before = await books();
      const key = `dup-${randomBytes(8).toString('hex')}`;
      const first = await duplicate(id, { count: 3 }).set('Idempotency-Key', key);
      const again = await duplicate(id, { count: 3 }).set('Idempotency-Key', key);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await books()).toBe(before + 3);
      expect((await duplicate(id, { count: 4 }).set('Idempotency-Key', key)).status).toBe(422);
      expect(await books()).toBe(before + 3);
    });

    it('an insert that fails half-way (the connection lost after a prefix is stored): 503, no copy left, their objects removed', async () => {
      const bytes = randomBytes(100);
      const created = await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'Half' }, { type: 'photo', filename: 'a.bin', filesize: bytes.length, filetype: 'application/octet-stream' }]);
      const id = created.body._id as string;
      const up = created.body.properties.photo[0].upload;
      expect((await fetch(up.url, { method: 'PUT', headers: up.headers, body: bytes })).status).toBe(200);
      const before = await books();
      const writer = api.deps.writer;
      const createMany = writer.createMany.bind(writer);
      let attempted: string[] = [];
      // A real insert of the first 4 copies, then the connection "drops": what createMany may leave.
      writer.createMany = async (db, entities, keys) => {
        attempted = entities.map(({ stored }) => stored.entity._id);
        await createMany(db, entities.slice(0, 4), keys);
        throw new MongoNetworkError('connection lost (injected by the test)');
      };
      let res: request.Response;
      try {
        res = await duplicate(id, { count: 10 });
      } finally {
        writer.createMany = createMany;
      }
      expect(res.status).toBe(503);
      expect(attempted).toHaveLength(10);
      expect(await books()).toBe(before);
      for (const copyId of attempted) expect(await api.deps.store.entities(t.db).get(copyId)).toBeUndefined();
      const objects = await Promise.all(attempted.map((copyId) => api.deps.store.entities(t.db).get(copyId)));
      expect(objects.every((o) => o === undefined)).toBe(true);
      // No object of a copy remains: the bucket's keys under each copy id are gone.
      const leftovers = await Promise.all(attempted.map((copyId) => listKeys(`${t.db}/${copyId}/`)));
      expect(leftovers.flat()).toEqual([]);
      // And the source still duplicates.
      expect((await duplicate(id, {})).status).toBe(201);
    }, 60_000);

    it('object storage failing half-way through the copies of the bytes: 503, nothing stored, the objects copied so far removed', async () => {
      const bytes = randomBytes(100);
      const created = await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'Storage' }, { type: 'photo', filename: 'a.bin', filesize: bytes.length, filetype: 'application/octet-stream' }]);
      const id = created.body._id as string;
      const up = created.body.properties.photo[0].upload;
      expect((await fetch(up.url, { method: 'PUT', headers: up.headers, body: bytes })).status).toBe(200);
      const before = await books();
      const objects = api.deps.objects;
      const copy = objects.copy.bind(objects);
      const copied: string[] = [];
      let calls = 0;
      // Real copies of the first 5 objects, then storage "goes away".
      objects.copy = async (from, to) => {
        if (++calls > 5) throw new StorageUnavailableError('storage away (injected by the test)');
        const done = await copy(from, to);
        if (done) copied.push(to);
        return done;
      };
      let res: request.Response;
      try {
        res = await duplicate(id, { count: 20 });
      } finally {
        objects.copy = copy;
      }
      expect(res.status).toBe(503);
      expect(copied).toHaveLength(5);
      expect(await books()).toBe(before);
      expect(await Promise.all(copied.map((key) => objects.exists(key)))).toEqual(copied.map(() => false));
    }, 60_000);

    it('duplicates in parallel all land, each whole', async () => {
      const id = await newBook([{ type: 'title', string: 'Parallel' }, { type: 'tags', string: 'a' }, { type: 'tags', string: 'b' }]);
      const before = await books();
      const answers = await Promise.all(Array.from({ length: 6 }, () => duplicate(id, { count: 15 })));
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 201));
      const ids = answers.flatMap((r) => (r.body.entities as Copy[]).map((copy) => copy._id));
      expect(new Set(ids).size).toBe(90);
      expect(await books()).toBe(before + 90);
      const listed = await request(api.app).get(`/api/${t.db}/entity?_type.reference=${book}&title.string=Parallel&limit=1000`).set('Authorization', t.owner.auth);
      expect(listed.body.count).toBe(91);
      for (const e of listed.body.entities as Entity[]) expect(strings(e.tags)).toEqual(['a', 'b']);
    }, 60_000);
  });

  describe('the client', () => {
    it('duplicate(id, {count, ignoredProperties}) over a real socket; a refusal is an EntiaError with the status', async () => {
      const id = await newBook([{ type: 'title', string: 'Client' }, { type: 'tags', string: 'x' }]);
      const db = new EntiaClient({ baseUrl: t.baseUrl, apiKey: t.owner.apiKey, db: t.db }).db();
      const { entities } = await db.duplicate(id, { count: 2, ignoredProperties: ['tags'] });
      expect(entities).toHaveLength(2);
      for (const copy of entities) {
        expect(copy.properties.title!.map((v) => v.string)).toEqual(['Client']);
        expect(copy.properties.tags).toBeUndefined();
      }
      expect((await db.duplicate(id)).entities).toHaveLength(1);
      const refused = await db.duplicate(id, { ignoredProperties: ['_type'] }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(EntiaError);
      expect((refused as EntiaError).status).toBe(400);
    });
  });

  /** Keys of the objects under `prefix`, listed in storage itself. */
  async function listKeys(prefix: string): Promise<string[]> {
    const { S3Client, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
    const config = api.deps.config;
    const client = new S3Client({
      endpoint: config.S3_ENDPOINT,
      region: config.S3_REGION,
      forcePathStyle: true,
      credentials: { accessKeyId: config.S3_ACCESS_KEY, secretAccessKey: config.S3_SECRET_KEY },
    });
    try {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: config.S3_BUCKET, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key!);
    } finally {
      client.destroy();
    }
  }
});
