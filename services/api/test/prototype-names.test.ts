import request from 'supertest';
import { createDatabase } from '@entia/entities';
import { testApi, type TestApi } from './support';
import { signIn, testTenant, type Person, type TestTenant } from './tenant';

/**
 * Names users choose that are also members of `Object.prototype` (issue 14). A name looked up as
 * `object[name]` finds the prototype's member when the object has no own entry of that name: a
 * database named `constructor` was readable with any other database's token. Every name the naming
 * rules admit is tried as a database name (created with the create-database code), as a type and
 * property name, and `__proto__`/`constructor` as JSON keys and filter key segments.
 */

/** Database names (`^[a-z][a-z0-9_]{2,62}$`) spelled like prototype members. */
const DATABASE_NAMES = ['constructor', 'hasownproperty', 'tostring', 'valueof'];
/** Every type and property name (`^[A-Za-z][A-Za-z0-9_]{0,63}$`) that is a prototype member. */
const MEMBER_NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'propertyIsEnumerable', 'toLocaleString'] as const;

interface NamedDatabase {
  db: string;
  owner: Person;
  /** A private entity of the database (readable by its owner only). */
  entity: { _id: string; properties: Record<string, { _id: string }[]> };
}

function expectProblem(res: request.Response, status: number): void {
  expect({ status: res.status, contentType: res.headers['content-type'] }).toEqual({ status, contentType: expect.stringMatching(/^application\/problem\+json/) });
  expect(res.body).toMatchObject({ status, type: expect.stringMatching(/^urn:entia:problem:/) });
}

describe('names that are Object.prototype members (issue 14)', () => {
  let api: TestApi;
  let stranger: TestTenant;
  const databases = new Map<string, NamedDatabase>();

  async function dropNamed(): Promise<void> {
    for (const name of DATABASE_NAMES) {
      await api.deps.store.database(name).dropDatabase();
      await api.deps.store.registry.unregister(name);
    }
  }

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    // The names are fixed: a run interrupted before afterAll may have left them behind.
    await dropNamed();
    stranger = await testTenant(api);
    for (const name of DATABASE_NAMES) {
      const created = await createDatabase(api.deps.store, name, 'Owner');
      const owner = await signIn(api, created.personId, created.apiKey);
      const res = await request(api.app)
        .post(`/api/${name}/entity`)
        .set('Authorization', owner.auth)
        .send([
          { type: '_type', reference: created.types.entity },
          { type: 'name', string: `secret of ${name}` },
        ]);
      if (res.status !== 201) throw new Error(`${name}: ${res.status} ${JSON.stringify(res.body)}`);
      databases.set(name, { db: name, owner, entity: res.body });
    }
  });
  afterAll(async () => {
    await stranger?.close();
    if (api) await dropNamed();
    await api?.close();
  });

  describe.each(DATABASE_NAMES)('a database named %s', (name) => {
    const named = () => databases.get(name)!;
    const base = () => `/api/${name}`;

    it('serves its own owner', async () => {
      const { owner, entity } = named();
      const res = await request(api.app).get(`${base()}/entity/${entity._id}`).set('Authorization', owner.auth);
      expect(res.status).toBe(200);
      expect(res.body.entity.name[0].string).toBe(`secret of ${name}`);
      const list = await request(api.app).get(`${base()}/entity?limit=0`).set('Authorization', owner.auth);
      expect(list.status).toBe(200);
    });

    it("refuses another database's token on every route with 403, never 200 or 500, and nothing changes", async () => {
      const { owner, entity } = named();
      const before = await request(api.app).get(`${base()}/entity/${entity._id}`).set('Authorization', owner.auth);
      const valueId = entity.properties.name![0]!._id;
      const as = (label: string, req: request.Test) => req.set('Authorization', stranger.owner.auth).then((res) => ({ label, res }));
      const id = entity._id;
      const answers = [
        await as('GET entity', request(api.app).get(`${base()}/entity/${id}`)),
        await as('GET list', request(api.app).get(`${base()}/entity`)),
        await as('POST query', request(api.app).post(`${base()}/entity/query`).send({})),
        await as('POST create', request(api.app).post(`${base()}/entity`).send([{ type: '_type', reference: id }])),
        await as('POST values', request(api.app).post(`${base()}/entity/${id}`).send([{ type: 'name', string: 'taken over' }])),
        await as('DELETE entity', request(api.app).delete(`${base()}/entity/${id}`)),
        await as('GET property', request(api.app).get(`${base()}/property/${valueId}`)),
        await as('DELETE property', request(api.app).delete(`${base()}/property/${valueId}`)),
        await as('POST aggregate', request(api.app).post(`${base()}/entity/${id}/aggregate`)),
        await as('GET aggregate', request(api.app).get(`${base()}/entity/${id}/aggregate`)),
        await as('GET pending', request(api.app).get(`${base()}/entity/${id}/pending`)),
        await as('POST database aggregate', request(api.app).post(`${base()}/aggregate`)),
      ];
      expect(answers.map(({ label, res }) => `${label}: ${res.status}`)).toEqual(answers.map(({ label }) => `${label}: 403`));
      for (const { res } of answers) expectProblem(res, 403);
      const after = await request(api.app).get(`${base()}/entity/${entity._id}`).set('Authorization', owner.auth);
      expect(after.body).toEqual(before.body);
    });

    it('shows nothing private to an anonymous caller', async () => {
      const { entity } = named();
      expectProblem(await request(api.app).get(`${base()}/entity/${entity._id}`), 404);
      const list = await request(api.app).get(`${base()}/entity`);
      expect(list.status).toBe(200);
      expect(list.body.count).toBe(0);
    });

    it("does not open another database to its own owner's token", async () => {
      const res = await request(api.app).get(`/api/${stranger.db}/entity`).set('Authorization', named().owner.auth);
      expectProblem(res, 403);
    });
  });

  describe('types and properties named like prototype members', () => {
    let t: TestTenant;
    const types = new Map<string, string>();
    /** Per type name, an entity with a value of every member-named property. */
    const full = new Map<string, { _id: string; properties: Record<string, { _id: string }[]> }>();
    /** Per type name, an entity with none of them. */
    const bare = new Map<string, string>();

    const get = (path: string) => request(api.app).get(path).set('Authorization', t.owner.auth);
    const post = (path: string, body: unknown) => request(api.app).post(path).set('Authorization', t.owner.auth).send(body as object);

    beforeAll(async () => {
      t = await testTenant(api);
      for (const typeName of MEMBER_NAMES) {
        const id = await t.defineType(typeName, [
          { name: 'constructor', type: 'string' },
          { name: 'toString', type: 'string', search: true },
          { name: 'hasOwnProperty', type: 'number', list: true },
          { name: 'valueOf', type: 'boolean' },
          { name: 'isPrototypeOf', type: 'date' },
          { name: 'propertyIsEnumerable', type: 'string', multilingual: true },
          { name: 'toLocaleString', type: 'reference' },
          { name: 'total', type: 'number', formula: 'hasOwnProperty SUM' },
        ]);
        types.set(typeName, id);
        const made = await t.create([
          { type: '_type', reference: id },
          { type: 'constructor', string: `built ${typeName}` },
          { type: 'toString', string: `shown ${typeName}` },
          { type: 'hasOwnProperty', number: 2 },
          { type: 'hasOwnProperty', number: 3 },
          { type: 'valueOf', boolean: true },
          { type: 'isPrototypeOf', date: '2024-02-29' },
          { type: 'propertyIsEnumerable', string: 'yes', language: 'en' },
          { type: 'toLocaleString', reference: t.owner.id },
        ]);
        if (made.status !== 201) throw new Error(`${typeName}: ${made.status} ${JSON.stringify(made.body)}`);
        full.set(typeName, made.body);
        const empty = await t.create([{ type: '_type', reference: id }]);
        if (empty.status !== 201) throw new Error(`${typeName}: ${empty.status} ${JSON.stringify(empty.body)}`);
        bare.set(typeName, empty.body._id);
      }
    });
    afterAll(() => t?.close());

    it.each(MEMBER_NAMES)('type %s: values of every member-named property are written, computed and read back exactly', async (typeName) => {
      const created = full.get(typeName)!;
      expect(Object.keys(created.properties).sort()).toEqual(['_created', '_owner', '_type', ...MEMBER_NAMES, 'total'].sort());
      const res = await get(`/api/${t.db}/entity/${created._id}`);
      expect(res.status).toBe(200);
      expect(res.body.entity).toMatchObject({
        constructor: [{ string: `built ${typeName}` }],
        toString: [{ string: `shown ${typeName}` }],
        hasOwnProperty: [{ number: 2 }, { number: 3 }],
        valueOf: [{ boolean: true }],
        isPrototypeOf: [{ date: '2024-02-29' }],
        propertyIsEnumerable: [{ string: 'yes', language: 'en' }],
        toLocaleString: [{ reference: t.owner.id, string: 'Owner' }],
        total: [{ number: 5 }],
      });
      const some = await get(`/api/${t.db}/entity/${created._id}?props=toString,valueOf`);
      expect(Object.keys(some.body.entity).sort()).toEqual(['_id', 'toString', 'valueOf']);
    });

    it.each(MEMBER_NAMES)('type %s: an entity without those properties shows none of them', async (typeName) => {
      const res = await get(`/api/${t.db}/entity/${bare.get(typeName)}`);
      expect(res.status).toBe(200);
      // The sum of no values is 0.
      expect(Object.keys(res.body.entity).sort()).toEqual(['_changed', '_created', '_editor', '_expander', '_id', '_owner', '_type', '_viewer', 'total']);
      expect(res.body.entity.total).toEqual([expect.objectContaining({ number: 0 })]);
    });

    it('overwrites and deletes values of member-named properties by their ids', async () => {
      const created = full.get('valueOf')!;
      const ids = new Map(Object.entries(created.properties));
      const ctor = ids.get('constructor')![0]!._id;
      const over = await post(`/api/${t.db}/entity/${created._id}`, [{ type: 'constructor', _id: ctor, string: 'rebuilt' }, { type: 'hasOwnProperty', number: 10 }]);
      expect(over.status).toBe(200);
      // The answer is an array naming each value's property: no key of it can be a member of Object.prototype.
      expect(over.body.properties.slice(0, 2).map((v: { _id: string; type: string }) => v.type)).toEqual(['constructor', 'hasOwnProperty']);
      expect(over.body.properties[0]._id).toBe(ctor);
      const flag = ids.get('valueOf')![0]!._id;
      expect((await request(api.app).delete(`/api/${t.db}/property/${flag}`).set('Authorization', t.owner.auth)).status).toBe(200);
      const res = await get(`/api/${t.db}/entity/${created._id}`);
      expect(res.body.entity.constructor).toEqual([expect.objectContaining({ _id: ctor, string: 'rebuilt' })]);
      expect(res.body.entity.total).toEqual([expect.objectContaining({ number: 15 })]);
      expect(Object.hasOwn(res.body.entity, 'valueOf')).toBe(false);
    });

    it.each([
      ['constructor.string=built%20constructor', ['constructor']],
      ['toString.string.regex=/^shown%20(t|h)/', ['toString', 'hasOwnProperty', 'toLocaleString']],
      ['hasOwnProperty.number.gte=3&valueOf.boolean=true', MEMBER_NAMES.filter((name) => name !== 'valueOf')],
      ['isPrototypeOf.date.gte=2024-01-01&propertyIsEnumerable.string=yes&toLocaleString.reference=OWNER', [...MEMBER_NAMES]],
      ['valueOf.boolean.exists=false&hasOwnProperty.number.exists=false', [...MEMBER_NAMES]],
      ['q=shown%20val', ['valueOf']],
    ])('filters and searches on member-named properties: %s', async (query, expected: readonly string[]) => {
      const res = await get(`/api/${t.db}/entity?_type.reference.in=${[...types.values()].join(',')}&${query.replace('OWNER', t.owner.id)}&sort=constructor.string`);
      expect(res.status).toBe(200);
      const names = res.body.entities.map((entity: { _type: { reference: string }[] }) => [...types].find(([, id]) => id === entity._type[0]!.reference)![0]);
      expect(names.sort()).toEqual([...expected].sort());
    });

    it('an entity lacking a member-named property matches exists=false', async () => {
      const res = await get(`/api/${t.db}/entity?_type.reference=${types.get('constructor')}&constructor.string.exists=false`);
      expect(res.status).toBe(200);
      expect(res.body.entities.map((entity: { _id: string }) => entity._id)).toEqual([bare.get('constructor')]);
    });

    it('sorts by member-named properties', async () => {
      const res = await get(`/api/${t.db}/entity?_type.reference=${types.get('toString')}&sort=-hasOwnProperty.number,toString.string`);
      expect(res.status).toBe(200);
      expect(res.body.entities.map((entity: { _id: string }) => entity._id)).toEqual([full.get('toString')!._id, bare.get('toString')]);
    });

    it('formula paths through a type and a property named like members: _child.constructor.hasOwnProperty', async () => {
      const shelf = await t.defineType('shelf', [{ name: 'sum', type: 'number', formula: '_child.constructor.hasOwnProperty SUM' }]);
      const parent = (await t.create([{ type: '_type', reference: shelf }])).body._id as string;
      const child = await t.create([
        { type: '_type', reference: types.get('constructor') },
        { type: '_parent', reference: parent },
        { type: 'hasOwnProperty', number: 7 },
      ]);
      expect(child.status).toBe(201);
      // A child of a type named otherwise does not count.
      await t.create([{ type: '_type', reference: types.get('valueOf') }, { type: '_parent', reference: parent }, { type: 'hasOwnProperty', number: 100 }]);
      const res = await post(`/api/${t.db}/entity/${parent}/aggregate`, undefined);
      expect(res.status).toBe(200);
      expect(res.body.entity.sum).toEqual([expect.objectContaining({ number: 7 })]);
    });

    it('a reference_query may filter on a property named constructor', async () => {
      const holder = await t.defineType('holder', [
        { name: 'pick', type: 'reference', reference_query: `constructor.string=built%20toString` },
      ]);
      const ok = await t.create([{ type: '_type', reference: holder }, { type: 'pick', reference: full.get('toString')!._id }]);
      expect(ok.status).toBe(201);
      const refused = await t.create([{ type: '_type', reference: holder }, { type: 'pick', reference: full.get('valueOf')!._id }]);
      expectProblem(refused, 400);
      expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/1/reference' })]);
    });

    it.each(['__proto__.string=x', '__proto__=x', 'constructor=x', 'toString.string=x&toString.string=y'])(
      'a reference_query %j is refused (400), not silently dropped',
      async (text) => {
        const type = await t.defineType(`r${Math.random().toString(36).slice(2, 8)}`, []);
        const res = await t.create([
          { type: '_type', reference: t.types.property },
          { type: '_parent', reference: type },
          { type: 'name', string: 'pick' },
          { type: 'type', string: 'reference' },
          { type: 'reference_query', string: text },
        ]);
        expectProblem(res, 400);
      },
    );

    it.each<[string, object, string]>([
      ['a "__proto__" filter key', { '__proto__.string': 'x' }, '__proto__.string'],
      ['a bare "__proto__" key', JSON.parse('{"__proto__": "x"}') as object, '__proto__'],
      ['a bare "constructor" key', { constructor: 'x' }, 'constructor'],
      ['"__proto__" as the property of a sort', { sort: '__proto__.string' }, 'sort'],
    ])('POST /entity/query with %s: 400 naming it', async (_name, body, parameter) => {
      const res = await post(`/api/${t.db}/entity/query`, body);
      expectProblem(res, 400);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ parameter })]));
    });

    it('POST /entity/query with a "__proto__" object is refused and pollutes nothing', async () => {
      const res = await request(api.app)
        .post(`/api/${t.db}/entity/query`)
        .set('Authorization', t.owner.auth)
        .set('Content-Type', 'application/json')
        .send('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}');
      expectProblem(res, 400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('POST /entity/query filters on a property named constructor', async () => {
      const res = await post(`/api/${t.db}/entity/query`, { 'constructor.string': 'built constructor' });
      expect(res.status).toBe(200);
      expect(res.body.entities.map((entity: { _id: string }) => entity._id)).toEqual([full.get('constructor')!._id]);
    });
  });
});
