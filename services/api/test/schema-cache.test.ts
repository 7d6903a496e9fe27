import { searchableOf } from '@entia/domain';
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
});
