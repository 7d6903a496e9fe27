import request from 'supertest';
import { API_MAIN, freePort, spawnService, stackEnv, waitForStatus } from './processes';
import { sharedWith, testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/** Issue 33, item 6: counter properties, numbered by the server, unique under any number of writers. */
describe('counter properties', () => {
  let api: TestApi;
  let t: TestTenant;
  let invoice: string;
  const errorsLogged: string[] = [];

  beforeAll(async () => {
    api = testApi({ LOG_LEVEL: 'error' }, { write: (line: string) => void errorsLogged.push(line) });
    t = await testTenant(api);
    invoice = await t.defineType('invoice', [
      { name: 'title', type: 'string' },
      { name: 'no', type: 'counter' },
    ]);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const create = (values: object[], by: Person = t.owner) => t.create([{ type: '_type', reference: invoice }, ...values], by);
  const add = (id: string, values: object[], by: Person = t.owner) => request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth).send(values);
  const noOf = async (id: string) => (await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).body.entity.no;
  /** The next number the counter hands out, taken by a create. */
  const nextNumber = async () => {
    const res = await create([{ type: 'no', counter: 1 }]);
    expect(res.status).toBe(201);
    return res.body.properties.no[0].number as number;
  };

  it('numbers values in turn: stored as a number, carrying its text, filtered and sorted as a number', async () => {
    const first = await create([{ type: 'title', string: 'a' }, { type: 'no', counter: 1 }]);
    expect(first.status).toBe(201);
    const n = first.body.properties.no[0].number as number;
    expect(first.body.properties.no).toEqual([expect.objectContaining({ type: 'no', number: n, string: String(n) })]);
    const second = await create([{ type: 'title', string: 'b' }, { type: 'no', counter: 1 }]);
    expect(second.body.properties.no[0].number).toBe(n + 1);
    const list = await request(api.app)
      .get(`/api/${t.db}/entity?_type.reference=${invoice}&no.number.gte=${n}&sort=-no.number&props=no`)
      .set('Authorization', t.owner.auth);
    expect(list.body.entities.map((e: { no: { number: number }[] }) => e.no[0]!.number)).toEqual([n + 1, n]);
    expect((await request(api.app).get(`/api/${t.db}/entity?no.string=${n + 1}&props=no`).set('Authorization', t.owner.auth)).body.count).toBe(1);
  });

  it("adding one to an entity answers it as Entu's form reads it; the form's re-send on leaving the field changes nothing", async () => {
    const { body } = await create([{ type: 'title', string: 'later' }]);
    const res = await add(body._id, [{ type: 'no', counter: 1 }]);
    expect(res.status).toBe(200);
    const value = res.body.properties.find((v: { type: string }) => v.type === 'no');
    expect(value).toMatchObject({ _id: expect.any(String), number: expect.any(Number), string: String(value.number) });
    const again = await add(body._id, [{ _id: value._id, type: 'no', string: value.string, counter: 1 }]);
    expect(again.status).toBe(200);
    expect(again.body.properties.find((v: { type: string }) => v.type === 'no')).toMatchObject({ _id: value._id, number: value.number });
    expect((await noOf(body._id)).map((v: { number: number }) => v.number)).toEqual([value.number]);
    expect((await add(body._id, [{ _id: value._id, type: 'no', string: '999999', counter: 1 }])).status).toBe(400);
  });

  it.each([
    ['counter on a string property', [{ type: 'title', string: 'x', counter: 1 }], '/1/counter'],
    ['a number of its own', [{ type: 'no', number: 5 }], '/1/number'],
    ['a text of its own', [{ type: 'no', string: '5' }], '/1/string'],
    ['a step of 0', [{ type: 'no', counter: 0 }], '/1/counter'],
    ['a step as text', [{ type: 'no', counter: '1' }], '/1/counter'],
    ['an operator as the step', [{ type: 'no', counter: { $inc: 1 } }], undefined],
    ['a huge step', [{ type: 'no', counter: 1e12 }], '/1/counter'],
  ])('%s → 400, nothing written, no number taken', async (_name, values, pointer) => {
    const before = await nextNumber();
    const res = await create(values);
    expect(res.status).toBe(400);
    if (pointer) expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    expect(await nextNumber()).toBe(before + 1);
  });

  it('a write refused for want of a right takes no number', async () => {
    const reader = await t.newPerson('Reader');
    const { body } = await create([{ type: 'title', string: 'shared' }, { type: '_viewer', reference: reader.id }]);
    const before = await nextNumber();
    expect((await add(body._id, [{ type: 'no', counter: 1 }], reader)).status).toBe(403);
    expect(await nextNumber()).toBe(before + 1);
  });

  it('a database whose counter records are gone (restored from an export, which keeps only the entities) goes on after the highest number it holds', async () => {
    const highest = await nextNumber();
    const db = api.deps.store.database(t.db);
    await db.collection('counter').deleteMany({});
    await db.collection('counter_claim').deleteMany({});
    expect(await nextNumber()).toBe(highest + 1);
  });

  it('200 at once through two API processes: 200 distinct numbers, each on its entity', async () => {
    const port = await freePort();
    const other = spawnService(API_MAIN, stackEnv({ ...sharedWith(api), PORT: String(port) }));
    try {
      await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 30_000);
      const bases = [t.baseUrl, `http://127.0.0.1:${port}`];
      const create = (i: number) =>
        fetch(`${bases[i % 2]}/api/${t.db}/entity`, {
          method: 'POST',
          headers: { Authorization: t.owner.auth, 'Content-Type': 'application/json' },
          body: JSON.stringify([{ type: '_type', reference: invoice }, { type: 'title', string: `c${i}` }, { type: 'no', counter: 1 }]),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as { _id: string; properties: { no: { number: number }[] } } }));
      // Refusals are only "busy, try again" (409, nothing written): a writer does as it says, so
      // each of the 200 ends created; a number is never handed out twice, nor an error 5xx answered.
      const created = await Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          let answer = await create(i);
          while (answer.status === 409) answer = await create(i);
          return answer;
        }),
      );
      const failed = created.filter((a) => a.status !== 201);
      // A failure says why: with what each process logged at error.
      expect(failed.length === 0 ? [] : [failed, errorsLogged, other.stdout()]).toEqual([]);
      const numbers = created.map((a) => a.body.properties.no[0]!.number);
      expect(new Set(numbers).size).toBe(200);
      // As stored, not only as answered.
      const stored = await Promise.all(created.slice(0, 20).map(async (a) => (await noOf(a.body._id))[0].number));
      expect(stored).toEqual(numbers.slice(0, 20));
    } finally {
      await other.stop();
    }
  });
});
