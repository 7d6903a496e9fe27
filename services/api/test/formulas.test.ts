import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// SPEC §9: a write recomputes the entity's own formulas in the same request.
describe('formula properties of the entity itself', () => {
  let api: TestApi;
  let t: TestTenant;
  let invoiceRow: string;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    invoiceRow = await t.defineType('row', [
      { name: 'quantity', type: 'number' },
      { name: 'price', type: 'number' },
      { name: 'label', type: 'string' },
    ]);
    const formula = (name: string, type: string, text: string) =>
      t.create([
        { type: '_type', reference: t.types.property },
        { type: '_parent', reference: invoiceRow },
        { type: 'name', string: name },
        { type: 'type', string: type },
        { type: 'formula', string: text },
      ]);
    expect((await formula('amount', 'number', 'quantity price MULTIPLY')).status).toBe(201);
    expect((await formula('title', 'string', "label ': ' amount CONCAT")).status).toBe(201);
    expect((await formula('unit', 'number', 'amount quantity DIVIDE')).status).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const get = async (id: string) => (await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).body.entity;
  const post = (id: string, values: object[]) => request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth).send(values);

  it('computes on create, including formulas that read other formulas, and reports them', async () => {
    const res = await t.create([
      { type: '_type', reference: invoiceRow },
      { type: 'quantity', number: 3 },
      { type: 'price', number: 2.5 },
      { type: 'label', string: 'Tea' },
    ]);
    expect(res.status).toBe(201);
    expect(res.body.properties.amount[0]).toMatchObject({ number: 7.5 });
    const row = await get(res.body._id);
    expect(row.amount[0].number).toBe(7.5);
    expect(row.title[0].string).toBe('Tea: 7.5');
    expect(row.unit[0].number).toBe(2.5);
  });

  it('recomputes on change and on deletion of an input; a division by zero leaves no value', async () => {
    const id = (await t.create([{ type: '_type', reference: invoiceRow }, { type: 'quantity', number: 2 }, { type: 'price', number: 4 }])).body._id;
    expect((await post(id, [{ type: 'quantity', number: 5 }])).status).toBe(200);
    expect((await get(id)).amount[0].number).toBe(20);

    const zero = await post(id, [{ type: 'quantity', number: 0 }]);
    expect(zero.status).toBe(200);
    const row = await get(id);
    expect(row.amount[0].number).toBe(0);
    expect(row.unit).toBeUndefined();

    // MULTIPLY multiplies the values it has: without a quantity, the price alone remains.
    const quantity = row.quantity[0]._id as string;
    expect((await request(api.app).delete(`/api/${t.db}/property/${quantity}`).set('Authorization', t.owner.auth)).status).toBe(200);
    expect((await get(id)).amount[0].number).toBe(4);
  });

  it('keeps an unchanged result (same value id) when an unrelated value changes', async () => {
    const id = (await t.create([{ type: '_type', reference: invoiceRow }, { type: 'quantity', number: 1 }, { type: 'price', number: 1 }])).body._id;
    const before = (await get(id)).amount[0]._id;
    await post(id, [{ type: 'label', string: 'x' }]).expect(200);
    expect((await get(id)).amount[0]._id).toBe(before);
  });

  it('a formula property cannot be written by a client', async () => {
    const res = await t.create([{ type: '_type', reference: invoiceRow }, { type: 'amount', number: 1 }]);
    expect(res.status).toBe(400);
  });
});
