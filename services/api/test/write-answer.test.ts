import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * The answer to adding values, `POST /api/{db}/entity/<id>` (SPEC §7, §7a): Entu's shape,
 * `{_id, properties: [value, …]}`, the values written in the order sent, each naming its property
 * in `type`. Entu's own web client reads it as `properties.find(x => x.type === '<prop>')` for the
 * new row's `_id`, a file's `upload`, a new API key's `string` — so each of those must be there,
 * for every kind of value its edit form and rights drawer send.
 */

type Existing = Record<string, { _id: string }[]>;
type Fields = Record<string, unknown>;

interface Case {
  /** The person entity instead of a book. */
  person?: boolean;
  /** What is sent; `existing` is the target's values as its create answered them. */
  send: (existing: Existing) => Fields[];
  /** What each written value holds besides `_id`, `type` and `created`, in the order sent. */
  answer: (existing: Existing) => Fields[];
}

const PNG = 'image/png';
const PHOTO_BYTES = 1234;
const uploadOf = (filesize: number, filetype: string) => ({
  url: expect.stringMatching(/^https?:\/\//),
  method: 'PUT',
  headers: { ACL: 'private', 'Content-Disposition': expect.stringContaining('a.png'), 'Content-Length': String(filesize), 'Content-Type': filetype },
});

describe('the answer to adding values (Entu\'s shape)', () => {
  let api: TestApi;
  let t: TestTenant;
  let bookType: string;
  /** How an answer departs from the published document's schema for it (none: it conforms). */
  let departures: (body: unknown) => string[];

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    bookType = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'pages', type: 'number' },
      { name: 'label', type: 'string', multilingual: true },
      { name: 'author', type: 'reference' },
      { name: 'photo', type: 'file' },
      { name: 'words', type: 'number' },
      { name: 'double', type: 'number', formula: 'words 2 MULTIPLY' },
    ]);
    // What the published document promises for this answer, checked against every answer below.
    const doc = (await request(api.app).get('/api/openapi.json')).body;
    const schema = doc.paths['/api/{db}/entity/{id}'].post.responses['200'].content['application/json'].schema;
    expect(schema.properties.properties).toMatchObject({ type: 'array', items: { required: expect.arrayContaining(['_id', 'type']) } });
    const check = addFormats(new Ajv({ strict: false, allErrors: true })).compile(schema);
    departures = (body) => (check(body) ? [] : (check.errors ?? []).map((error) => `${error.instancePath} ${error.message}`));
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const post = (id: string, values: object[]) => request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send(values);
  async function book(): Promise<{ _id: string; properties: Existing }> {
    const res = await t.create([
      { type: '_type', reference: bookType },
      { type: 'title', string: 'Emma' },
      { type: '_sharing', string: 'domain' },
      { type: '_inheritrights', boolean: false },
    ]);
    expect(res.status).toBe(201);
    return res.body;
  }

  const cases: [string, Case][] = [
    ['a string (R14)', { send: () => [{ type: 'title', string: 'Persuasion' }], answer: () => [{ string: 'Persuasion' }] }],
    ['a number', { send: () => [{ type: 'pages', number: 474 }], answer: () => [{ number: 474 }] }],
    ['a multilingual value', { send: () => [{ type: 'label', string: 'Raamat', language: 'et' }], answer: () => [{ string: 'Raamat', language: 'et' }] }],
    ['a reference, with its label', { send: () => [{ type: 'author', reference: t.owner.id }], answer: () => [{ reference: t.owner.id, string: 'Owner' }] }],
    [
      'an overwrite by _id (R15): the same _id',
      { send: (e) => [{ _id: e.title![0]!._id, type: 'title', string: 'Emma!' }], answer: (e) => [{ _id: e.title![0]!._id, string: 'Emma!' }] },
    ],
    [
      'a file (R14f): its upload',
      {
        send: () => [{ type: 'photo', filename: 'a.png', filesize: PHOTO_BYTES, filetype: PNG }],
        answer: () => [{ filename: 'a.png', filesize: PHOTO_BYTES, filetype: PNG, upload: uploadOf(PHOTO_BYTES, PNG) }],
      },
    ],
    ['_inheritrights (R17i), without _id: it replaces the one there', { send: () => [{ type: '_inheritrights', boolean: true }], answer: () => [{ boolean: true }] }],
    ['_sharing (R17s), new', { send: () => [{ type: '_sharing', string: 'public' }], answer: () => [{ string: 'public' }] }],
    [
      '_sharing (R17s), overwritten by _id',
      { send: (e) => [{ _id: e._sharing![0]!._id, type: '_sharing', string: 'public' }], answer: (e) => [{ _id: e._sharing![0]!._id, string: 'public' }] },
    ],
    [
      '_inheritrights (R17i), overwritten by _id',
      { send: (e) => [{ _id: e._inheritrights![0]!._id, type: '_inheritrights', boolean: true }], answer: (e) => [{ _id: e._inheritrights![0]!._id, boolean: true }] },
    ],
    ['an API key generated on a person: its plaintext, once', { person: true, send: () => [{ type: '_api_key' }], answer: () => [{ string: expect.stringMatching(/^[A-Za-z0-9_-]{43,}$/) }] }],
    [
      'several properties at once: in the order sent, not grouped',
      {
        send: (e) => [
          { type: 'pages', number: 12 },
          { type: 'label', string: 'Book', language: 'en' },
          { type: 'photo', filename: 'a.png', filesize: 10, filetype: PNG },
          { _id: e.title![0]!._id, type: 'title', string: 'Emma (1815)' },
          { type: '_sharing', string: 'private' },
          { type: 'label', string: 'Raamat', language: 'et' },
        ],
        answer: (e) => [
          { number: 12 },
          { string: 'Book', language: 'en' },
          { filename: 'a.png', filesize: 10, filetype: PNG, upload: uploadOf(10, PNG) },
          { _id: e.title![0]!._id, string: 'Emma (1815)' },
          { string: 'private' },
          { string: 'Raamat', language: 'et' },
        ],
      },
    ],
  ];

  it.each(cases)('%s', async (_name, { person, send, answer }) => {
    const target = person ? { _id: (await t.newPerson('Key Holder')).id, properties: {} } : await book();
    const sent = send(target.properties);
    const res = await post(target._id, sent);
    expect(res.status).toBe(200);
    expect(departures(res.body)).toEqual([]);
    expect(res.body._id).toBe(target._id);
    expect(Array.isArray(res.body.properties)).toBe(true);
    // The values sent come first, one each, in their order; the server may add computed ones after them.
    const written = (res.body.properties as Fields[]).slice(0, sent.length);
    expect(written).toEqual(
      answer(target.properties).map((fields, i) => ({ _id: expect.any(String), type: sent[i]!.type, created: { at: expect.any(String), by: t.owner.id }, ...fields })),
    );
    // As Entu's client reads it: the row's new _id is the one now stored under that property.
    const stored = (await request(api.app).get(`/api/${t.db}/entity/${target._id}`).set('Authorization', t.owner.auth)).body.entity;
    for (const value of written) expect((stored[value.type as string] as { _id: string }[]).map((v) => v._id)).toContain(value._id);
  });

  it('a file\'s upload takes the bytes as Entu\'s client sends them (every header but Content-Length)', async () => {
    const { _id } = await book();
    const bytes = randomBytes(PHOTO_BYTES);
    const res = await post(_id, [{ type: 'photo', filename: 'a.png', filesize: bytes.length, filetype: PNG }]);
    const photo = res.body.properties.find((value: Fields) => value.type === 'photo');
    const { 'Content-Length': _length, ...headers } = photo.upload.headers as Record<string, string>;
    const put = await fetch(photo.upload.url, { method: photo.upload.method, headers, body: bytes });
    expect(put.status).toBe(200);
    const value = await request(api.app).get(`/api/${t.db}/property/${photo._id}`).set('Authorization', t.owner.auth);
    expect(value.body).toMatchObject({ _id: photo._id, type: 'photo', filesize: bytes.length, url: expect.any(String) });
  });

  it('a formula of the entity that changed follows the values sent', async () => {
    const { _id } = await book();
    const res = await post(_id, [{ type: 'words', number: 21 }]);
    expect(res.status).toBe(200);
    expect(res.body.properties.map((value: Fields) => [value.type, value.number])).toEqual(expect.arrayContaining([['words', 21], ['double', 42]]));
    expect(res.body.properties[0]).toMatchObject({ type: 'words', number: 21 });
  });

  it('a refused write answers a problem, never a partial list', async () => {
    const { _id } = await book();
    const res = await post(_id, [{ type: 'pages', number: 1 }, { type: 'pages', number: 'many' }]);
    expect(res.status).toBe(400);
    expect(res.body.properties).toBeUndefined();
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer: '/1/number' })]);
  });

  it('creating an entity keeps its answer by property name (the interface\'s shape)', async () => {
    const res = await t.create([{ type: '_type', reference: bookType }, { type: 'title', string: 'Sanditon' }]);
    expect(res.status).toBe(201);
    expect(Array.isArray(res.body.properties)).toBe(false);
    expect(res.body.properties.title).toEqual([expect.objectContaining({ type: 'title', string: 'Sanditon' })]);
    expect(Object.keys(res.body.properties)).toEqual(expect.arrayContaining(['_created', '_owner', '_type', 'title']));
  });
});
