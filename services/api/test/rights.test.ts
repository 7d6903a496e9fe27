import request from 'supertest';
import { testApi, type TestApi } from './support';
import { signIn, testTenant, writtenOf, type Person, type TestTenant } from './tenant';

/**
 * SPEC §6, the rights table, rule by rule: each with the callers it allows and the callers it
 * refuses, and after every refusal the entity read back (as its owner) exactly as it was.
 */

type Role = 'owner' | 'editor' | 'expander' | 'viewer' | 'stranger';
const ROLES: Role[] = ['owner', 'editor', 'expander', 'viewer', 'stranger'];
const RIGHT_PROPERTIES = ['_owner', '_editor', '_expander', '_viewer'];

interface Value {
  _id: string;
  type: string;
  /** On a holder of a higher right a lower list also shows: where its value is stored. */
  property_type?: string;
  string?: string;
  reference?: string;
  boolean?: boolean;
}
type Entity = { _id: string } & Record<string, Value[] | string>;
interface Created {
  _id: string;
  properties: Record<string, Value[]>;
}

/** `[role, expected status]` rows for it.each, in the order of ROLES. */
const table = (statuses: Record<Role, number>): [Role, number][] => ROLES.map((role) => [role, statuses[role]]);

describe('rights (SPEC §6)', () => {
  let api: TestApi;
  let t: TestTenant;
  let docType: string;
  /** Persons holding each right on every `doc()` (the stranger holds none); `t.owner` created them all. */
  let people: Record<Role, Person>;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    docType = await t.defineType('doc', [
      { name: 'title', type: 'string' },
      { name: 'tag', type: 'string', list: true },
    ]);
    // Person entities readable by everyone signed in, so that any of them can name another in a
    // right list (a reference must point at an entity the writer can read, SPEC §3).
    const [owner, editor, expander, viewer, stranger] = await Promise.all(
      ['Olga Owner', 'Edith Editor', 'Exa Expander', 'Vic Viewer', 'Stan Stranger'].map(async (name) => {
        const res = await t.create([
          { type: '_type', reference: t.types.person },
          { type: 'name', string: name },
          { type: '_sharing', string: 'domain' },
          { type: '_api_key' },
        ]);
        if (res.status !== 201) throw new Error(`person create failed: ${res.status} ${JSON.stringify(res.body)}`);
        return signIn(api, res.body._id, res.body.properties._api_key[0].string);
      }),
    );
    people = { owner: owner!, editor: editor!, expander: expander!, viewer: viewer!, stranger: stranger! };
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const path = (p: string) => `/api/${t.db}${p}`;
  const withAuth = (req: request.Test, by: Person | undefined) => (by ? req.set('Authorization', by.auth) : req);
  const get = (p: string, by?: Person) => withAuth(request(api.app).get(path(p)), by);
  const post = (p: string, body: object[], by?: Person) => withAuth(request(api.app).post(path(p)), by).send(body);
  const del = (p: string, by?: Person) => withAuth(request(api.app).delete(path(p)), by);

  /** Number of entity documents in the tenant database, read from MongoDB directly. */
  const count = () => api.deps.store.database(t.db).collection('entity').countDocuments();

  /**
   * A doc created by `t.owner`, with `_owner` Olga (besides its creator), `_editor` Edith,
   * `_expander` Exa and `_viewer` Vic; Stan holds no right on it.
   */
  async function doc(extra: object[] = []): Promise<Created> {
    const res = await t.create([
      { type: '_type', reference: docType },
      { type: 'title', string: 'original' },
      { type: 'tag', string: 'a' },
      { type: '_owner', reference: people.owner.id },
      { type: '_editor', reference: people.editor.id },
      { type: '_expander', reference: people.expander.id },
      { type: '_viewer', reference: people.viewer.id },
      ...extra,
    ]);
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Created;
  }

  /**
   * The entity as its owner (the creator, `t.owner`, unless told) reads it, together with the stored
   * document's version (so a refused write that reached the database cannot hide behind a cache).
   */
  async function snapshot(id: string, by: Person = t.owner): Promise<Entity> {
    const res = await get(`/entity/${id}`, by);
    expect(res.status).toBe(200);
    const stored = await api.deps.store.entities(t.db).get(id);
    return { ...res.body.entity, __storedVersion: stored?.version } as Entity;
  }

  const values = (entity: Entity, name: string) => (entity[name] as Value[] | undefined) ?? [];
  const strings = (entity: Entity, name: string) => values(entity, name).map((v) => v.string);
  /** Who holds `name` by a value of its own: the holders of higher levels it also lists (`property_type`) aside. */
  const refs = (entity: Entity, name: string) => values(entity, name).filter((v) => v.property_type === undefined).map((v) => v.reference);

  describe('read an entity: _viewer or higher, or _sharing domain / public', () => {
    let readOnly: Created;
    beforeAll(async () => {
      readOnly = await doc();
    });

    it.each(table({ owner: 200, editor: 200, expander: 200, viewer: 200, stranger: 404 }))(
      'private entity, GET entity and GET property: %s → %i',
      async (role, status) => {
        const d = readOnly;
        const entity = await get(`/entity/${d._id}`, people[role]);
        expect(entity.status).toBe(status);
        const property = await get(`/property/${d.properties.title![0]!._id}`, people[role]);
        expect(property.status).toBe(status);
        if (status === 200) {
          expect(entity.body.entity.title[0].string).toBe('original');
          expect(property.body).toMatchObject({ type: 'title', string: 'original' });
        }
      },
    );

    it('a private entity is 404 to a stranger and to anonymous, exactly like an id that does not exist', async () => {
      const d = readOnly;
      const missing = await get('/entity/aaaaaaaaaaaaaaaaaaaaaaaa', people.stranger);
      expect(missing.status).toBe(404);
      const shape = (res: request.Response) => ({ status: res.status, type: res.body.type, title: res.body.title, contentType: res.headers['content-type'] });
      for (const by of [people.stranger, undefined]) {
        expect(shape(await get(`/entity/${d._id}`, by))).toEqual(shape(missing));
        expect(shape(await get(`/property/${d.properties.title![0]!._id}`, by))).toEqual({ ...shape(missing) });
      }
    });

    it('_sharing domain: any signed-in person of the db may read (entity and property); anonymous may not', async () => {
      const d = await doc([{ type: '_sharing', string: 'domain' }]);
      const title = d.properties.title![0]!._id;
      expect((await get(`/entity/${d._id}`, people.stranger)).status).toBe(200);
      expect((await get(`/property/${title}`, people.stranger)).status).toBe(200);
      expect((await get(`/entity/${d._id}`)).status).toBe(404);
      expect((await get(`/property/${title}`)).status).toBe(404);
    });

    it('_sharing public: anonymous (no Authorization header) may read, and so may a stranger', async () => {
      const d = await doc([{ type: '_sharing', string: 'public' }]);
      const title = d.properties.title![0]!._id;
      const entity = await get(`/entity/${d._id}`);
      expect(entity.status).toBe(200);
      expect(entity.body.entity.title[0].string).toBe('original');
      const property = await get(`/property/${title}`);
      expect(property.status).toBe(200);
      expect(property.body).toMatchObject({ _id: title, string: 'original' });
      expect((await get(`/entity/${d._id}`, people.stranger)).status).toBe(200);
    });

    it('private (explicitly or by default): anonymous gets 404', async () => {
      for (const d of [readOnly, await doc([{ type: '_sharing', string: 'private' }])]) {
        expect((await get(`/entity/${d._id}`)).status).toBe(404);
        expect((await get(`/property/${d.properties.title![0]!._id}`)).status).toBe(404);
      }
    });

    it('a change of rights or sharing takes effect on the next read', async () => {
      const d = await doc([{ type: '_sharing', string: 'public' }]);
      expect((await get(`/entity/${d._id}`)).status).toBe(200);
      expect((await get(`/entity/${d._id}`, people.viewer)).status).toBe(200);
      await post(`/entity/${d._id}`, [{ type: '_sharing', string: 'private' }], t.owner).expect(200);
      expect((await get(`/entity/${d._id}`)).status).toBe(404);
      await del(`/property/${d.properties._viewer![0]!._id}`, t.owner).expect(200);
      expect((await get(`/entity/${d._id}`, people.viewer)).status).toBe(404);
      expect((await get(`/property/${d.properties.title![0]!._id}`, people.viewer)).status).toBe(404);
    });
  });

  describe('add, overwrite or delete values: _editor or higher (read right without it: 403, no read right: 404)', () => {
    it.each(table({ owner: 200, editor: 200, expander: 403, viewer: 403, stranger: 404 }))(
      'add a list value, replace a non-list value, overwrite a value by _id, DELETE a value: %s → %i each',
      async (role, status) => {
        const d = await doc([{ type: 'tag', string: 'b' }]);
        const [a, b] = d.properties.tag!;
        const before = await snapshot(d._id);
        const by = people[role];
        const statuses = {
          add: (await post(`/entity/${d._id}`, [{ type: 'tag', string: 'c' }], by)).status,
          replace: (await post(`/entity/${d._id}`, [{ type: 'title', string: 'changed' }], by)).status,
          overwrite: (await post(`/entity/${d._id}`, [{ _id: a!._id, type: 'tag', string: 'A' }], by)).status,
          delete: (await del(`/property/${b!._id}`, by)).status,
        };
        expect(statuses).toEqual({ add: status, replace: status, overwrite: status, delete: status });
        const after = await snapshot(d._id);
        if (status !== 200) return expect(after).toEqual(before);
        expect(strings(after, 'title')).toEqual(['changed']);
        const tags = values(after, 'tag').map((v) => [v._id, v.string]);
        expect(tags).toEqual([
          [a!._id, 'A'],
          [expect.any(String), 'c'],
        ]);
      },
    );

    it('a stranger who can read through _sharing domain or public still gets 403 on a write, and nothing changes', async () => {
      for (const sharing of ['domain', 'public']) {
        const d = await doc([{ type: '_sharing', string: sharing }]);
        const before = await snapshot(d._id);
        const tag = d.properties.tag![0]!._id;
        const statuses = {
          add: (await post(`/entity/${d._id}`, [{ type: 'tag', string: 'b' }], people.stranger)).status,
          overwrite: (await post(`/entity/${d._id}`, [{ _id: tag, type: 'tag', string: 'x' }], people.stranger)).status,
          deleteValue: (await del(`/property/${tag}`, people.stranger)).status,
          deleteEntity: (await del(`/entity/${d._id}`, people.stranger)).status,
        };
        expect([sharing, statuses]).toEqual([sharing, { add: 403, overwrite: 403, deleteValue: 403, deleteEntity: 403 }]);
        expect(await snapshot(d._id)).toEqual(before);
      }
    });

    it('anonymous writes to a public entity are 401, and nothing changes', async () => {
      const d = await doc([{ type: '_sharing', string: 'public' }]);
      const before = await snapshot(d._id);
      expect((await post(`/entity/${d._id}`, [{ type: 'tag', string: 'b' }])).status).toBe(401);
      expect((await del(`/property/${d.properties.tag![0]!._id}`)).status).toBe(401);
      expect((await del(`/entity/${d._id}`)).status).toBe(401);
      expect(await snapshot(d._id)).toEqual(before);
    });
  });

  describe('change _owner, _editor, _expander, _viewer, _sharing, _inheritrights: _owner only', () => {
    const RIGHT_LISTS = ['_owner', '_editor', '_expander', '_viewer'] as const;
    const REMOVABLE = ['_editor', '_expander', '_viewer', '_sharing', '_inheritrights'] as const;
    const ACTIONS = [
      'overwrite _sharing',
      'delete _owner',
      ...REMOVABLE.map((name) => `delete ${name}`),
      ...RIGHT_LISTS.map((name) => `add ${name}`),
      'add _sharing',
      'add _inheritrights',
    ];

    it.each(table({ owner: 200, editor: 403, expander: 403, viewer: 403, stranger: 404 }))(
      'overwrite _sharing by _id, DELETE a value of each, add a value to each: %s → %i each',
      async (role, status) => {
        const d = await doc([
          { type: '_sharing', string: 'private' },
          { type: '_inheritrights', boolean: false },
        ]);
        // Olga (the "owner" role) stays an owner throughout, so she reads it back.
        const before = await snapshot(d._id, people.owner);
        const by = people[role];
        const id = (name: string) => d.properties[name]![0]!._id;
        const statuses: Record<string, number> = {};

        const overwrite = await post(`/entity/${d._id}`, [{ _id: id('_sharing'), type: '_sharing', string: 'public' }], by);
        statuses['overwrite _sharing'] = overwrite.status;
        if (status === 200) expect(overwrite.body.properties).toEqual([expect.objectContaining({ _id: id('_sharing'), type: '_sharing', string: 'public' })]);
        // The creator's _owner value (another owner, Olga, remains).
        const creatorOwner = d.properties._owner!.find((v) => v.reference === t.owner.id)!._id;
        statuses['delete _owner'] = (await del(`/property/${creatorOwner}`, by)).status;
        for (const name of REMOVABLE) statuses[`delete ${name}`] = (await del(`/property/${id(name)}`, by)).status;
        for (const name of RIGHT_LISTS) statuses[`add ${name}`] = (await post(`/entity/${d._id}`, [{ type: name, reference: people.stranger.id }], by)).status;
        statuses['add _sharing'] = (await post(`/entity/${d._id}`, [{ type: '_sharing', string: 'domain' }], by)).status;
        statuses['add _inheritrights'] = (await post(`/entity/${d._id}`, [{ type: '_inheritrights', boolean: true }], by)).status;

        expect(statuses).toEqual(Object.fromEntries(ACTIONS.map((action) => [action, status])));
        const after = await snapshot(d._id, people.owner);
        if (status !== 200) return expect(after).toEqual(before);
        expect(refs(after, '_owner')).toEqual([people.owner.id, people.stranger.id]);
        for (const name of ['_editor', '_expander', '_viewer']) expect([name, refs(after, name)]).toEqual([name, [people.stranger.id]]);
        expect(strings(after, '_sharing')).toEqual(['domain']);
        expect(values(after, '_inheritrights').map((v) => v.boolean)).toEqual([true]);
      },
    );

    it('an editor cannot slip a right change in with an allowed write: the whole POST is 403, nothing written', async () => {
      const d = await doc();
      const before = await snapshot(d._id);
      const res = await post(`/entity/${d._id}`, [{ type: 'tag', string: 'b' }, { type: '_editor', reference: people.stranger.id }], people.editor);
      expect(res.status).toBe(403);
      expect(await snapshot(d._id)).toEqual(before);
    });
  });
  describe('set _parent to X: _expander or higher on X', () => {
    /** X is a doc(): each role person holds that right on it. */
    /** Each role person holds that right on X (a doc()); nothing here changes X itself. */
    let x: Created;
    beforeAll(async () => {
      x = await doc();
    });

    it.each(table({ owner: 200, editor: 200, expander: 200, viewer: 403, stranger: 400 }))(
      'the caller is %s of X: adding _parent → X to an entity they own → %i; creating one with _parent → X likewise',
      async (role, status) => {
        const by = people[role];
        const child = await t.create([{ type: '_type', reference: docType }, { type: 'title', string: 'child' }], by);
        expect(child.status).toBe(201);
        const before = await snapshot(child.body._id, by);
        const res = await post(`/entity/${child.body._id}`, [{ type: '_parent', reference: x._id }], by);
        expect(res.status).toBe(status);
        const after = await snapshot(child.body._id, by);
        if (status === 200) expect(refs(after, '_parent')).toEqual([x._id]);
        else expect(after).toEqual(before);
        if (status === 400) expect(res.body.errors?.[0]?.pointer).toBe('/0/reference');

        const entities = await count();
        const created = await t.create([{ type: '_type', reference: docType }, { type: '_parent', reference: x._id }], by);
        expect(created.status).toBe(status === 200 ? 201 : status);
        expect(await count()).toBe(status === 200 ? entities + 1 : entities);
        if (status === 200) expect(refs(await snapshot(created.body._id, by), '_parent')).toEqual([x._id]);
      },
    );

    it('X readable only through _sharing domain (no right on X) → 403, nothing written', async () => {
      const shared = await doc([{ type: '_sharing', string: 'domain' }]);
      const child = (await t.create([{ type: '_type', reference: docType }], people.stranger)).body._id as string;
      const before = await snapshot(child, people.stranger);
      expect((await post(`/entity/${child}`, [{ type: '_parent', reference: shared._id }], people.stranger)).status).toBe(403);
      expect(await snapshot(child, people.stranger)).toEqual(before);
    });

    it('expander on X but only viewer on the child: adding _parent to the child is 403 (it is a value write)', async () => {
      const child = await doc();
      const before = await snapshot(child._id);
      expect((await post(`/entity/${child._id}`, [{ type: '_parent', reference: x._id }], people.viewer)).status).toBe(403);
      expect(await snapshot(child._id)).toEqual(before);
    });
  });

  describe('create an entity: any signed-in person of the db; the creator becomes _owner', () => {
    it('a person with no right anywhere creates: 201, and is the _owner of the new entity', async () => {
      const res = await t.create([{ type: '_type', reference: docType }, { type: 'title', string: 'mine' }], people.stranger);
      expect(res.status).toBe(201);
      expect(res.body.properties._owner.map((v: Value) => v.reference)).toEqual([people.stranger.id]);
      const entity = await snapshot(res.body._id, people.stranger);
      expect(refs(entity, '_owner')).toEqual([people.stranger.id]);
      // ... with all an owner's rights, e.g. giving a right and deleting the entity.
      expect((await post(`/entity/${res.body._id}`, [{ type: '_viewer', reference: people.viewer.id }], people.stranger)).status).toBe(200);
      expect((await get(`/entity/${res.body._id}`, people.viewer)).status).toBe(200);
      expect((await del(`/entity/${res.body._id}`, people.stranger)).status).toBe(200);
    });

    it('anonymous POST /entity is 401 and creates nothing', async () => {
      const entities = await count();
      const res = await request(api.app).post(path('/entity')).send([{ type: '_type', reference: docType }, { type: 'title', string: 'anon' }]);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await count()).toBe(entities);
    });
  });

  describe('delete an entity: _owner only', () => {
    it.each(table({ owner: 200, editor: 403, expander: 403, viewer: 403, stranger: 404 }))(
      'DELETE /entity/<id>: %s → %i',
      async (role, status) => {
        const d = await doc();
        const before = await snapshot(d._id);
        const res = await del(`/entity/${d._id}`, people[role]);
        expect(res.status).toBe(status);
        if (status === 200) {
          expect(res.body).toEqual({ deleted: true });
          expect((await get(`/entity/${d._id}`, t.owner)).status).toBe(404);
        } else {
          expect(await snapshot(d._id)).toEqual(before);
        }
      },
    );
  });

  describe('the last _owner cannot be removed', () => {
    it('deleting the only _owner value is 400 and changes nothing', async () => {
      const d = (await t.create([{ type: '_type', reference: docType }])).body as Created;
      expect(d.properties._owner).toHaveLength(1);
      const before = await snapshot(d._id);
      const res = await del(`/property/${d.properties._owner![0]!._id}`, t.owner);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(await snapshot(d._id)).toEqual(before);
    });

    it('an owner can be removed while another remains, then the remaining one cannot', async () => {
      const d = await doc(); // owners: t.owner (creator) and Olga
      const creator = d.properties._owner!.find((v) => v.reference === t.owner.id);
      const olga = d.properties._owner!.find((v) => v.reference === people.owner.id);
      expect(d.properties._owner).toHaveLength(2);
      // The creator removes their own ownership; Olga remains.
      expect((await del(`/property/${creator!._id}`, t.owner)).status).toBe(200);
      const after = await snapshot(d._id, people.owner);
      expect(refs(after, '_owner')).toEqual([people.owner.id]);
      // Olga is now the last owner.
      expect((await del(`/property/${olga!._id}`, people.owner)).status).toBe(400);
      expect(await snapshot(d._id, people.owner)).toEqual(after);
      // The former owner holds no right any more.
      expect((await get(`/entity/${d._id}`, t.owner)).status).toBe(404);
    });

    it('an owner may remove another owner (not only themselves)', async () => {
      const d = await doc();
      const olga = d.properties._owner!.find((v) => v.reference === people.owner.id)!;
      expect((await del(`/property/${olga._id}`, t.owner)).status).toBe(200);
      expect(refs(await snapshot(d._id), '_owner')).toEqual([t.owner.id]);
      expect((await get(`/entity/${d._id}`, people.owner)).status).toBe(404);
    });
  });

  describe('rights are cumulative: owner ⊇ editor ⊇ expander ⊇ viewer', () => {
    // The tables above already run every action for every role; this states the whole ladder at once.
    it('each right can do everything the rights below it can', async () => {
      const x = await doc();
      const can = async (role: Role) => {
        const by = people[role];
        const [d, child] = await Promise.all([doc(), t.create([{ type: '_type', reference: docType }], by)]);
        return {
          read: (await get(`/entity/${d._id}`, by)).status === 200,
          expand: (await post(`/entity/${child.body._id}`, [{ type: '_parent', reference: x._id }], by)).status === 200,
          edit: (await post(`/entity/${d._id}`, [{ type: 'tag', string: 'z' }], by)).status === 200,
          share: (await post(`/entity/${d._id}`, [{ type: '_sharing', string: 'domain' }], by)).status === 200,
          delete: (await del(`/entity/${d._id}`, by)).status === 200,
        };
      };
      const results = Object.fromEntries(await Promise.all(ROLES.map(async (role) => [role, await can(role)])));
      expect(results).toEqual({
        owner: { read: true, expand: true, edit: true, share: true, delete: true },
        editor: { read: true, expand: true, edit: true, share: false, delete: false },
        expander: { read: true, expand: true, edit: false, share: false, delete: false },
        viewer: { read: true, expand: false, edit: false, share: false, delete: false },
        stranger: { read: false, expand: false, edit: false, share: false, delete: false },
      });
    });

    it('a person in several right lists has the highest of them', async () => {
      const d = await doc([{ type: '_editor', reference: people.viewer.id }]);
      expect((await post(`/entity/${d._id}`, [{ type: 'tag', string: 'b' }], people.viewer)).status).toBe(200);
      expect(strings(await snapshot(d._id), 'tag')).toEqual(['a', 'b']);
    });
  });

  describe('_api_key: the person themselves or an _owner of the person entity', () => {
    /**
     * A fresh person whose entity is private and owned by t.owner only, and who holds no right on
     * it (a right the server may have given them on their own entity is taken away by the owner).
     */
    async function keyHolder(): Promise<{ person: Person; keyValueId: string }> {
      const person = await t.newPerson('Key Holder');
      let entity = await snapshot(person.id);
      const own = RIGHT_PROPERTIES.flatMap((name) => values(entity, name).filter((v) => v.reference === person.id));
      for (const value of own) await del(`/property/${value._id}`, t.owner).expect(200);
      if (own.length > 0) entity = await snapshot(person.id);
      expect(refs(entity, '_owner')).toEqual([t.owner.id]);
      for (const name of RIGHT_PROPERTIES) expect([name, refs(entity, name)]).not.toEqual([name, expect.arrayContaining([person.id])]);
      expect((await get(`/entity/${person.id}`, person)).status).toBe(404);
      return { person, keyValueId: values(entity, '_api_key')[0]!._id };
    }
    const exchange = (key: string) => request(api.app).get('/api/auth').set('Authorization', `Bearer ${key}`);

    it('a person adds an API key to their own entity without any right on it, and it works', async () => {
      const { person } = await keyHolder();
      const res = await post(`/entity/${person.id}`, [{ type: '_api_key' }], person);
      expect(res.status).toBe(200);
      const key = writtenOf(res.body, '_api_key')[0]?.string as string;
      expect(key).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      const auth = await exchange(key);
      expect(auth.status).toBe(200);
      expect(auth.body.accounts[0].user._id).toBe(person.id);
      expect(values(await snapshot(person.id), '_api_key')).toHaveLength(2);
    });

    it('a newly created person (as the server sets up their entity) adds and deletes their own key', async () => {
      const person = await t.newPerson('Fresh');
      const added = await post(`/entity/${person.id}`, [{ type: '_api_key' }], person);
      expect(added.status).toBe(200);
      const key = writtenOf(added.body, '_api_key')[0]!;
      expect((await exchange(key.string)).status).toBe(200);
      expect((await del(`/property/${key._id}`, person)).status).toBe(200);
      expect((await exchange(key.string)).status).toBe(401);
      expect((await exchange(person.apiKey)).status).toBe(200);
    });

    it('a person deletes an API key of their own entity without any right on it; the key stops working', async () => {
      const { person, keyValueId } = await keyHolder();
      const res = await del(`/property/${keyValueId}`, person);
      expect(res.status).toBe(200);
      expect((await exchange(person.apiKey)).status).toBe(401);
      expect(values(await snapshot(person.id), '_api_key')).toHaveLength(0);
    });

    it('an _owner of the person entity may add and delete its keys', async () => {
      const { person, keyValueId } = await keyHolder();
      const added = await post(`/entity/${person.id}`, [{ type: '_api_key' }], t.owner);
      expect(added.status).toBe(200);
      expect((await exchange(writtenOf(added.body, '_api_key')[0]!.string)).status).toBe(200);
      expect((await del(`/property/${keyValueId}`, t.owner)).status).toBe(200);
      expect((await exchange(person.apiKey)).status).toBe(401);
    });

    describe('refused callers (one key holder; each refusal leaves it as it was)', () => {
      let holder: { person: Person; keyValueId: string };
      let before: Entity;
      beforeAll(async () => {
        holder = await keyHolder();
        await post(`/entity/${holder.person.id}`, [{ type: '_editor', reference: people.editor.id }], t.owner).expect(200);
        before = await snapshot(holder.person.id);
      });
      afterEach(async () => {
        expect(await snapshot(holder.person.id)).toEqual(before);
        expect((await exchange(holder.person.apiKey)).status).toBe(200);
      });

      it('an editor of the person entity (readable, not owner) gets 403 adding or deleting a key', async () => {
        expect((await post(`/entity/${holder.person.id}`, [{ type: '_api_key' }], people.editor)).status).toBe(403);
        expect((await del(`/property/${holder.keyValueId}`, people.editor)).status).toBe(403);
      });

      it('another person with no right on the person entity gets 404 adding or deleting a key', async () => {
        expect((await post(`/entity/${holder.person.id}`, [{ type: '_api_key' }], people.stranger)).status).toBe(404);
        expect((await del(`/property/${holder.keyValueId}`, people.stranger)).status).toBe(404);
      });

      it("a person's own-key privilege does not extend to other values of their entity", async () => {
        const res = await post(`/entity/${holder.person.id}`, [{ type: 'name', string: 'Renamed' }], holder.person);
        // Their own person entity is addressed (for keys) but not readable, so the write is refused, not hidden.
        expect(res.status).toBe(403);
      });
    });
  });
});
