import { indexed } from '@entia/domain';
import request from 'supertest';
import { runAdmin } from './admin-cli';
import { sharedWith, testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// Type names are unique in a database (issue 35): every client that addresses a type by name (the
// SDK's `db.type('book')`, Entu's client's `_type.string=` menus) would be left ambiguous by a
// second one. Enforced under the schema lease, so concurrent creators on two API instances make
// one type; duplicates made before are reported by `entia-admin migrate --status`.
describe('type names are unique in a database', () => {
  let api: TestApi;
  let second: TestApi;
  let t: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    // A second API instance on the same Redis and control database: another replica.
    second = testApi({ ...sharedWith(api), RATE_LIMIT_MAX: '1000000' });
    [t, other] = await Promise.all([testTenant(api), testTenant(api)]);
  });
  afterAll(async () => {
    await Promise.all([t?.close(), other?.close()]);
    await Promise.all([api?.close(), second?.close()]);
  });

  const createType = (name: string, via: TestApi = api, tenant: TestTenant = t) =>
    request(via.app)
      .post(`/api/${tenant.db}/entity`)
      .set('Authorization', tenant.owner.auth)
      .send([{ type: '_type', reference: tenant.types.entity }, { type: 'name', string: name }]);
  const typesNamed = async (name: string, tenant: TestTenant = t) => {
    const res = await request(api.app).get(`/api/${tenant.db}/entity`).query({ '_type.reference': tenant.types.entity, 'name.string': name, props: 'name' }).set('Authorization', tenant.owner.auth);
    expect(res.status).toBe(200);
    return res.body.entities.map((e: { _id: string }) => e._id) as string[];
  };

  it('a second type of a name is 409 naming the first; nothing is written', async () => {
    const first = await createType('book');
    expect(first.status).toBe(201);
    const again = await createType('book');
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain(first.body._id);
    expect(again.headers['retry-after']).toBeUndefined();
    expect(await typesNamed('book')).toEqual([first.body._id]);
    // Names are compared exactly; another database has its own.
    expect((await createType('Book')).status).toBe(201);
    expect((await createType('book', api, other)).status).toBe(201);
  });

  it('renaming a type to a name another has is 409; to a free name, or to its own, it is not', async () => {
    const author = (await createType('author')).body._id as string;
    const writer = (await createType('writer')).body._id as string;
    const nameValue = (await request(api.app).get(`/api/${t.db}/entity/${writer}`).set('Authorization', t.owner.auth)).body.entity.name[0]._id;
    const rename = (string: string) => request(api.app).post(`/api/${t.db}/entity/${writer}`).set('Authorization', t.owner.auth).send([{ _id: nameValue, type: 'name', string }]);
    const refused = await rename('author');
    expect([refused.status, refused.body.detail]).toEqual([409, expect.stringContaining(author)]);
    expect(await typesNamed('author')).toEqual([author]);
    expect((await rename('writer')).status).toBe(200);
    expect((await rename('novelist')).status).toBe(200);
  });

  it('concurrent creators on two API instances make exactly one type', async () => {
    const attempts = await Promise.all(Array.from({ length: 8 }, (_, i) => createType('zine', i % 2 === 0 ? api : second)));
    const statuses = attempts.map((res) => res.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    const made = attempts.find((res) => res.status === 201)!.body._id;
    expect(await typesNamed('zine')).toEqual([made]);
    for (const refused of attempts.filter((res) => res.status === 409)) expect(refused.body.detail).toContain(made);
  });

  it('concurrent definitions of one property name in a type make exactly one', async () => {
    const type = (await createType('poster')).body._id as string;
    const define = (via: TestApi) =>
      request(via.app)
        .post(`/api/${t.db}/entity`)
        .set('Authorization', t.owner.auth)
        .send([{ type: '_type', reference: t.types.property }, { type: '_parent', reference: type }, { type: 'name', string: 'title' }, { type: 'type', string: 'string' }]);
    const attempts = await Promise.all(Array.from({ length: 6 }, (_, i) => define(i % 2 === 0 ? api : second)));
    expect(attempts.map((res) => res.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
  });

  it('migrate --status reports types that share a name from before, with how to resolve it', async () => {
    // Made around the API, as a database from before this rule may hold them.
    const keep = (await createType('pamphlet')).body._id as string;
    const extra = (await createType('leaflet')).body._id as string;
    const entities = api.deps.store.entities(t.db);
    const stored = (await entities.get(extra))!;
    stored.entity.properties.name![0]!.string = 'pamphlet';
    expect(await entities.commit(extra, stored.version, { kind: 'replace', stored: indexed(stored.entity, new Set()) }, [], 'by-hand')).toBe(true);

    const json = await runAdmin(['migrate', '--status', '--json'], sharedWith(api));
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).sharedTypeNames).toEqual([{ db: t.db, name: 'pamphlet', types: [keep, extra].sort() }]);
    const text = await runAdmin(['migrate', '--status'], sharedWith(api));
    expect(text.stdout).toContain(`types sharing a name in ${t.db}: "pamphlet" is the name of ${[keep, extra].sort().join(', ')}: rename or delete all but one`);
  });

  it.each([
    ['a $-operator as the name', { $ne: null }],
    ['a number as the name', 42],
  ])('refuses %s: 400, nothing written', async (_, name) => {
    const res = await request(api.app)
      .post(`/api/${t.db}/entity`)
      .set('Authorization', t.owner.auth)
      .send([{ type: '_type', reference: t.types.entity }, { type: 'name', string: name }]);
    expect(res.status).toBe(400);
  });

  it('takes __proto__ and constructor as plain names, unique like any other', async () => {
    for (const name of ['__proto__', 'constructor']) {
      expect((await createType(name)).status).toBe(201);
      expect((await createType(name)).status).toBe(409);
      expect(await typesNamed(name)).toHaveLength(1);
    }
  });
});
