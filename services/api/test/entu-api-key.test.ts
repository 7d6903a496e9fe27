import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/** Issue 33, item 4: the "Generate API Key" of Entu's edit form, `[{type: 'entu_api_key', string: 'generate'}]`. */
describe("API keys from Entu's edit form", () => {
  let api: TestApi;
  let t: TestTenant;
  let person: Person;
  let noteType: string;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    person = await t.newPerson('Mari');
    noteType = await t.defineType('note', [{ name: 'title', type: 'string' }]);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const add = (entity: string, values: object[], by: Person = person) => request(api.app).post(`/api/${t.db}/entity/${entity}`).set('Authorization', by.auth).send(values);
  const keysOf = async (entity: string) => (await request(api.app).get(`/api/${t.db}/entity/${entity}`).set('Authorization', t.owner.auth)).body.entity._api_key ?? [];
  const exchange = (key: string) => request(api.app).get('/api/auth').set('Authorization', `Bearer ${key}`);

  it('a person generates a key for themselves: answered once under the name sent, stored as an _api_key that signs in', async () => {
    const before = (await keysOf(person.id)).length;
    const res = await add(person.id, [{ type: 'entu_api_key', string: 'generate' }]);
    expect(res.status).toBe(200);
    // What the client reads: entity.properties.find(x => x.type === 'entu_api_key').string
    const shown = res.body.properties.find((value: { type: string }) => value.type === 'entu_api_key');
    expect(shown).toMatchObject({ _id: expect.any(String), string: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const stored = await keysOf(person.id);
    expect(stored).toHaveLength(before + 1);
    expect(stored.find((value: { _id: string }) => value._id === shown._id)).toMatchObject({ string: '***' });
    const signedIn = await exchange(shown.string);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.accounts[0].user._id).toBe(person.id);
  });

  it('an owner generates one for a person; without "generate" it is the same', async () => {
    const res = await add(person.id, [{ type: 'entu_api_key' }], t.owner);
    expect(res.status).toBe(200);
    expect((await exchange(res.body.properties[0].string)).status).toBe(200);
  });

  it('beside other values, each answered in the order sent', async () => {
    const res = await add(person.id, [{ type: 'name', string: 'Mari Maasikas' }, { type: 'entu_api_key', string: 'generate' }], t.owner);
    expect(res.status).toBe(200);
    expect(res.body.properties.map((value: { type: string }) => value.type)).toEqual(['name', 'entu_api_key']);
  });

  it.each([
    ['a key of its own', () => person.id, [{ type: 'entu_api_key', string: 'my-own-key-0123456789' }], 400],
    ['an _id (a key is never overwritten)', () => person.id, [{ type: 'entu_api_key', _id: '5f1d7a0c9b1e8a0012345601' }], 400],
    ['a $-operator as its value', () => person.id, [{ type: 'entu_api_key', string: { $ne: '' } }], 400],
    ['on an entity that is not a person', () => 'note', [{ type: 'entu_api_key', string: 'generate' }], 400],
  ])('%s → %i, nothing written', async (_name, target, values, status) => {
    const entity = target() === 'note' ? (await t.create([{ type: '_type', reference: noteType }, { type: 'title', string: 'n' }])).body._id : target();
    const before = await keysOf(entity);
    const res = await add(entity, values, t.owner);
    expect(res.status).toBe(status);
    expect(res.body.properties).toBeUndefined();
    expect(await keysOf(entity)).toEqual(before);
  });

  it("another person's key: 404 to one who cannot see the person, 403 to one who may only read it; nothing written", async () => {
    const other = await t.newPerson('Other');
    const before = await keysOf(person.id);
    expect((await add(person.id, [{ type: 'entu_api_key', string: 'generate' }], other)).status).toBe(404);
    await add(person.id, [{ type: '_viewer', reference: other.id }], t.owner).expect(200);
    expect((await add(person.id, [{ type: 'entu_api_key', string: 'generate' }], other)).status).toBe(403);
    expect(await keysOf(person.id)).toEqual(before);
  });

  it('ten clicks at once: each a distinct key, at most the limit kept', async () => {
    const fresh = await t.newPerson('Clicker');
    const answers = await Promise.all(Array.from({ length: 10 }, () => add(fresh.id, [{ type: 'entu_api_key', string: 'generate' }], fresh)));
    const made = answers.filter((res) => res.status === 200).map((res) => res.body.properties[0].string as string);
    expect(answers.every((res) => res.status === 200 || res.status === 400 || res.status === 409)).toBe(true);
    expect(new Set(made).size).toBe(made.length);
    const stored = await keysOf(fresh.id);
    // One key from newPerson, plus every one answered 200, and never more than 10.
    expect(stored).toHaveLength(1 + made.length);
    expect(stored.length).toBeLessThanOrEqual(10);
  });
});
