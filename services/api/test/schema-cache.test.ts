import { searchableOf } from '@entia/domain';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// Definitions are read on every write: they are cached per process, keyed by a Redis token that
// every write of a type or definition replaces.
describe('schema cache', () => {
  let api: TestApi;
  let t: TestTenant;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const record = () => api.deps.store.registry.database(t.db).then((r) => r!);

  it('concurrent readers share one load, and later ones the cached schema', async () => {
    const type = await t.defineType('memo', [{ name: 'body', type: 'string' }]);
    const schemas = await Promise.all(Array.from({ length: 5 }, async () => api.deps.schemas.of(t.db, await record())));
    expect(new Set(schemas).size).toBe(1);
    expect(await api.deps.schemas.of(t.db, await record())).toBe(schemas[0]);
    expect([...schemas[0]!.definitionsOf(type).keys()]).toEqual(['body']);
    expect(schemas[0]!.typeNames.get(type)).toBe('memo');
  });

  it('a definition written through the API is seen by the next write at once', async () => {
    const type = await t.defineType('note', [{ name: 'title', type: 'string' }]);
    const before = await api.deps.schemas.of(t.db, await record());
    const res = await t.create([
      { type: '_type', reference: t.types.property },
      { type: '_parent', reference: type },
      { type: 'name', string: 'words' },
      { type: 'type', string: 'text' },
      { type: 'search', boolean: true },
    ]);
    expect(res.status).toBe(201);
    const after = await api.deps.schemas.of(t.db, await record());
    expect(after).not.toBe(before);
    expect([...searchableOf(after.definitionsOf(type))]).toEqual(['words']);
    // …and a write that names the new property is accepted at once.
    expect((await t.create([{ type: '_type', reference: type }, { type: 'words', string: 'fresh' }])).status).toBe(201);
  });

  it('a write of an ordinary entity leaves the cached schema in place', async () => {
    const type = await t.defineType('plain', [{ name: 'title', type: 'string' }]);
    const before = await api.deps.schemas.of(t.db, await record());
    expect((await t.create([{ type: '_type', reference: type }, { type: 'title', string: 'x' }])).status).toBe(201);
    expect(await api.deps.schemas.of(t.db, await record())).toBe(before);
  });

  // A create's `_type` target comes from the cached schema, not the database: it must be as
  // current as a read, rights and name included.
  it('a create sees its type as it is now: a rename labels the next write, a withdrawn sharing refuses it', async () => {
    const type = await t.defineType('ledger', [{ name: 'memo', type: 'string' }]);
    const colleague = await t.newPerson('Colleague');
    const sharing = await api.deps.store.entities(t.db).get(type).then((v) => v!.entity.properties._sharing![0]!._id);
    const first = await t.create([{ type: '_type', reference: type }, { type: 'memo', string: 'a' }], colleague);
    expect(first.status).toBe(201);
    expect(first.body.properties._type[0].string).toBe('ledger');

    expect((await request(api.app).post(`/api/${t.db}/entity/${type}`).set('Authorization', t.owner.auth).send([{ type: 'name', string: 'journal' }])).status).toBe(200);
    const renamed = await t.create([{ type: '_type', reference: type }, { type: 'memo', string: 'b' }], colleague);
    expect(renamed.status).toBe(201);
    expect(renamed.body.properties._type[0].string).toBe('journal');

    // The type was readable through `_sharing: domain` only; without it the colleague cannot use it.
    expect((await request(api.app).delete(`/api/${t.db}/property/${sharing}`).set('Authorization', t.owner.auth)).status).toBe(200);
    const refused = await t.create([{ type: '_type', reference: type }, { type: 'memo', string: 'c' }], colleague);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.errors)).toContain(type);
    expect((await t.create([{ type: '_type', reference: type }, { type: 'memo', string: 'd' }])).status).toBe(201);
  });
});
