import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

// SPEC §10: GETs served from Redis when fresh, per caller, invalidated by every write before it is acknowledged.
describe('response cache', () => {
  let api: TestApi;
  let t: TestTenant;
  let note: string;
  let viewer: Person;
  let stranger: Person;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    note = await t.defineType('note', [{ name: 'body', type: 'string' }]);
    viewer = await t.newPerson('Vera');
    stranger = await t.newPerson('Sam');
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const get = (path: string, by?: Person, etag?: string) => {
    const req = request(api.app).get(`/api/${t.db}${path}`);
    if (by) req.set('Authorization', by.auth);
    if (etag) req.set('If-None-Match', etag);
    return req;
  };
  const post = (id: string, values: object[], by: Person = t.owner) =>
    request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth).send(values);
  const created = async (values: object[]) => {
    const res = await t.create([{ type: '_type', reference: note }, ...values]);
    expect(res.status).toBe(201);
    return res.body._id as string;
  };
  const ids = (res: request.Response) => (res.body.entities as { _id: string }[]).map((e) => e._id).sort();

  it('serves a repeated GET from the cache, with the same body and ETag', async () => {
    const id = await created([{ type: 'body', string: 'first' }]);
    const first = await get(`/entity/${id}`, t.owner);
    const second = await get(`/entity/${id}`, t.owner);
    expect([first.status, first.headers['x-cache'], second.status, second.headers['x-cache']]).toEqual([200, 'miss', 200, 'hit']);
    expect(second.body).toEqual(first.body);
    expect(second.text).toBe(first.text);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(first.headers['content-type']).toBe(second.headers['content-type']);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['cache-control']).toBe('private, no-cache');
  });

  it('read-your-writes: the writer and another reader see a change at once', async () => {
    const id = await created([{ type: 'body', string: 'before' }, { type: '_viewer', reference: viewer.id }]);
    for (const by of [t.owner, viewer]) expect((await get(`/entity/${id}`, by)).body.entity.body[0].string).toBe('before');
    for (const by of [t.owner, viewer]) expect((await get(`/entity/${id}`, by)).headers['x-cache']).toBe('hit');

    const value = (await get(`/entity/${id}`, t.owner)).body.entity.body[0]._id;
    expect((await post(id, [{ type: 'body', _id: value, string: 'after' }])).status).toBe(200);
    for (const by of [t.owner, viewer]) expect((await get(`/entity/${id}`, by)).body.entity.body[0].string).toBe('after');

    // A list cached before the write is stale after it, for everyone.
    const query = `/entity?_type.reference=${note}&body.string=after`;
    const listed = await get(query, viewer);
    expect(ids(listed)).toContain(id);
    const another = await created([{ type: 'body', string: 'after' }, { type: '_viewer', reference: viewer.id }]);
    expect(ids(await get(query, viewer))).toEqual([id, another].sort());
  });

  it('a removed right is not served from the cache', async () => {
    const id = await created([{ type: 'body', string: 'shared' }, { type: '_viewer', reference: viewer.id }]);
    expect((await get(`/entity/${id}`, viewer)).status).toBe(200);
    expect((await get(`/entity/${id}`, viewer)).headers['x-cache']).toBe('hit');
    const right = (await get(`/entity/${id}`, t.owner)).body.entity._viewer.find((v: { reference: string }) => v.reference === viewer.id)._id;
    expect((await request(api.app).delete(`/api/${t.db}/property/${right}`).set('Authorization', t.owner.auth)).status).toBe(200);
    expect((await get(`/entity/${id}`, viewer)).status).toBe(404);
    expect(ids(await get(`/entity?_type.reference=${note}`, viewer))).not.toContain(id);
  });

  it("never hands one caller's cached page to another", async () => {
    const shared = await created([{ type: 'body', string: 'leak test' }, { type: '_viewer', reference: viewer.id }]);
    const open = await created([{ type: 'body', string: 'leak test' }, { type: '_sharing', string: 'public' }]);
    const query = `/entity?_type.reference=${note}&body.string=leak%20test`;
    for (let i = 0; i < 2; i++) expect(ids(await get(query, viewer))).toEqual([shared, open].sort());
    expect((await get(query, viewer)).headers['x-cache']).toBe('hit');
    // Same query, other callers: their own view, never the viewer's cached one.
    expect(ids(await get(query, stranger))).toEqual([open]);
    expect(ids(await get(query))).toEqual([open]);
    expect((await get(`/entity/${shared}`, stranger)).status).toBe(404);
    expect((await get(`/entity/${shared}`)).status).toBe(404);

    // An anonymous cached page never shows private data, however it was filled.
    for (let i = 0; i < 2; i++) expect(ids(await get(query))).toEqual([open]);
    expect((await get(`/entity/${open}`)).status).toBe(200);
    expect((await get(`/entity/${open}`)).headers['x-cache']).toBe('hit');
    expect((await get(`/entity/${open}`)).body.entity.body[0].string).toBe('leak test');
  });

  it('If-None-Match answers 304 while unchanged, 200 with a new ETag after a write', async () => {
    const id = await created([{ type: 'body', string: 'tagged' }]);
    const first = await get(`/entity/${id}`, t.owner);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const unchanged = await get(`/entity/${id}`, t.owner, etag);
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    const list = await get(`/entity?_type.reference=${note}`, t.owner);
    expect((await get(`/entity?_type.reference=${note}`, t.owner, list.headers.etag as string)).status).toBe(304);

    expect((await post(id, [{ type: 'body', string: 'retagged' }])).status).toBe(200);
    const changed = await get(`/entity/${id}`, t.owner, etag);
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect((await get(`/entity?_type.reference=${note}`, t.owner, list.headers.etag as string)).status).toBe(200);
  });

  it('If-None-Match as browsers send it (fetch adds Cache-Control: no-cache and Pragma) still answers 304', async () => {
    const id = await created([{ type: 'body', string: 'browser' }]);
    const first = await get(`/entity/${id}`, t.owner);
    const etag = first.headers.etag as string;
    const revalidate = (tags: string) => get(`/entity/${id}`, t.owner, tags).set('Cache-Control', 'no-cache').set('Pragma', 'no-cache');
    expect((await revalidate(etag)).status).toBe(304);
    expect((await revalidate(`W/${etag}`)).status).toBe(304); // weak comparison (RFC 9110 §13.1.2)
    expect((await revalidate(`"other", ${etag}`)).status).toBe(304);
    expect((await revalidate('"other"')).status).toBe(200);
    expect((await post(id, [{ type: 'body', string: 'changed' }])).status).toBe(200);
    const changed = await revalidate(etag);
    expect(changed.status).toBe(200);
    expect(changed.body.entity.body[0].string).toBe('changed');
  });

  it('props and query variants are cached apart', async () => {
    const id = await created([{ type: 'body', string: 'variant' }]);
    const full = await get(`/entity/${id}`, t.owner);
    const narrow = await get(`/entity/${id}?props=body`, t.owner);
    expect(Object.keys(narrow.body.entity).sort()).toEqual(['_id', 'body']);
    expect(Object.keys(full.body.entity)).toContain('_owner');
    expect(narrow.headers.etag).not.toBe(full.headers.etag);
  });

  it('errors are not cached', async () => {
    const res = await get(`/entity?_type.reference=${note}&body.number=x`, t.owner);
    expect(res.status).toBe(400);
    expect(res.headers['x-cache']).toBeUndefined();
  });
});

describe('response cache turned off', () => {
  it('CACHE_TTL_SECONDS=0 renders every GET afresh (still with an ETag)', async () => {
    const api = testApi({ CACHE_TTL_SECONDS: '0' });
    const t = await testTenant(api);
    try {
      const path = `/api/${t.db}/entity/${t.owner.id}`;
      const first = await request(api.app).get(path).set('Authorization', t.owner.auth);
      const second = await request(api.app).get(path).set('Authorization', t.owner.auth).set('If-None-Match', first.headers.etag as string);
      expect([first.headers['x-cache'], second.status, second.headers['x-cache']]).toEqual(['miss', 304, 'miss']);
    } finally {
      await t.close();
      await api.close();
    }
  });
});
