import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * `mandatory` (SPEC §5; docs/decisions.md): a create must give the property, its last value cannot
 * be deleted, and entities that lacked it before it became mandatory stay writable.
 */
describe('mandatory', () => {
  let api: TestApi;
  let t: TestTenant;
  let typeId: string;
  let isbnDefinition: string;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    typeId = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'author', type: 'string', list: true, mandatory: true },
    ]);
    isbnDefinition = await t.defineProperty(typeId, { name: 'isbn', type: 'string' });
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const post = (id: string, values: object[]) => request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send(values);
  const remove = (valueId: string) => request(api.app).delete(`/api/${t.db}/property/${valueId}`).set('Authorization', t.owner.auth);
  const read = async (id: string) => (await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).body.entity;

  it('a create without a mandatory property is refused (400), naming it, and nothing is stored', async () => {
    const before = (await request(api.app).get(`/api/${t.db}/entity?_type.reference=${typeId}`).set('Authorization', t.owner.auth)).body.count;
    const res = await t.create([
      { type: '_type', reference: typeId },
      { type: 'title', string: 'Untitled' },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ pointer: '', message: '"author" is mandatory' }]);
    const after = (await request(api.app).get(`/api/${t.db}/entity?_type.reference=${typeId}`).set('Authorization', t.owner.auth)).body.count;
    expect(after).toBe(before);
  });

  it('a create giving it is stored', async () => {
    const res = await t.create([
      { type: '_type', reference: typeId },
      { type: 'author', string: 'A' },
    ]);
    expect(res.status).toBe(201);
  });

  it('one of several values can be deleted; the last one cannot (400), and it stays', async () => {
    const res = await t.create([
      { type: '_type', reference: typeId },
      { type: 'author', string: 'A' },
      { type: 'author', string: 'B' },
    ]);
    const [a, b] = res.body.properties.author;
    expect((await remove(a._id)).status).toBe(200);
    const refused = await remove(b._id);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe('"author" is mandatory: its last value cannot be deleted.');
    expect((await read(res.body._id)).author.map((v: { string: string }) => v.string)).toEqual(['B']);
  });

  it('is not retroactive: an entity written before the property became mandatory stays writable without it', async () => {
    const old = await t.create([
      { type: '_type', reference: typeId },
      { type: 'author', string: 'A' },
      { type: 'title', string: 'Old' },
    ]);
    expect(old.status).toBe(201);
    expect((await post(isbnDefinition, [{ type: 'mandatory', boolean: true }])).status).toBe(200);
    const res = await post(old.body._id, [{ type: 'title', string: 'Still old' }]);
    expect(res.status).toBe(200);
    expect((await read(old.body._id)).isbn).toBeUndefined();
    // New entities now need it.
    expect((await t.create([{ type: '_type', reference: typeId }, { type: 'author', string: 'A' }])).status).toBe(400);
  });
});
