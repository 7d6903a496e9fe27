import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from './eventually';
import { graphqlAs } from './graphql-client';
import { liveStream, type SseReader } from './sse';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

// `_noaccess` (issue 33, item 7): the persons it names hold no right on the entity — their own or
// inherited — and pass none on to its children; `domain` and `public` sharing still apply. Checked
// on every way a person reads: GET, list and count, `q`, GraphQL, the change feed, and what other
// entities copy of it (reference labels and formulas, recomputed by the worker).
describe('_noaccess: a denied person reads the entity nowhere', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let other: TestTenant;
  let vic: Person;
  let folder: string;
  let note: string;
  let clipping: string;
  const streams: SseReader[] = [];

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    [t, other] = await Promise.all([testTenant(api), testTenant(api)]);
    folder = await t.defineType('folder', [{ name: 'name', type: 'string', search: true }]);
    note = await t.defineType('note', [
      { name: 'name', type: 'string', search: true },
      { name: 'secret', type: 'string' },
    ]);
    clipping = await t.defineType('clipping', [
      { name: 'source', type: 'reference' },
      { name: 'copied', type: 'string', formula: 'source.*.secret' },
    ]);
    vic = await t.newPerson('Vic');
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await worker?.close();
    await Promise.all([t?.close(), other?.close()]);
    await api?.close();
  });

  const get = (id: string, by: Person = vic) => request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth);
  const post = (id: string, values: object[], by: Person = t.owner) => request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth).send(values);
  const created = async (values: object[], by: Person = t.owner) => {
    const res = await t.create(values, by);
    expect(res.status).toBe(201);
    return res.body._id as string;
  };
  const listed = async (query: Record<string, string>, by: Person = vic) => {
    const res = await request(api.app).get(`/api/${t.db}/entity`).query({ ...query, props: 'name' }).set('Authorization', by.auth);
    expect(res.status).toBe(200);
    return { ids: res.body.entities.map((e: { _id: string }) => e._id) as string[], count: res.body.count as number };
  };
  const deny = async (id: string, person: string) => {
    const res = await post(id, [{ type: '_noaccess', reference: person }]);
    expect(res.status).toBe(200);
  };

  /** A folder Vic views, and a note in it that inherits that right. */
  async function tree(name: string) {
    const top = await created([{ type: '_type', reference: folder }, { type: 'name', string: `${name} folder` }, { type: '_viewer', reference: vic.id }]);
    const leaf = await created([
      { type: '_type', reference: note },
      { type: 'name', string: `${name} note` },
      { type: 'secret', string: `${name} secret` },
      { type: '_parent', reference: top },
      { type: '_inheritrights', boolean: true },
    ]);
    await eventually(() => get(leaf), (res) => res.status === 200);
    return { top, leaf };
  }

  it('hides the entity from GET, list, count, q and GraphQL, while its parent stays readable', async () => {
    const { top, leaf } = await tree('quartz');
    expect((await listed({ q: 'quartz' })).ids.sort()).toEqual([top, leaf].sort());

    await deny(leaf, vic.id);
    expect((await get(leaf)).status).toBe(404);
    expect((await get(top)).status).toBe(200);
    expect(await listed({ q: 'quartz' })).toEqual({ ids: [top], count: 1 });
    expect((await listed({ '_type.reference': note })).ids).not.toContain(leaf);
    expect((await listed({ '_parent.reference': top })).ids).not.toContain(leaf);
    const gql = await graphqlAs(t, vic)(`{ noteList { count entities { _id } } folderList { entities { _id } } }`);
    expect(gql.errors).toBeUndefined();
    expect(gql.data!.noteList.entities.map((e: { _id: string }) => e._id)).not.toContain(leaf);
    expect(gql.data!.folderList.entities.map((e: { _id: string }) => e._id)).toContain(top);
    const byId = await graphqlAs(t, vic)(`{ entity(id: "${leaf}") { _id } }`);
    expect(byId.data?.entity ?? null).toBeNull();

    // The owner still reads it, and sees whom it denies.
    const owned = await get(leaf, t.owner);
    expect(owned.status).toBe(200);
    expect(owned.body.entity._noaccess.map((v: { reference: string }) => v.reference)).toEqual([vic.id]);
  });

  it('passes nothing on: a child inheriting from the denying entity gives the person no right', async () => {
    const { leaf } = await tree('basalt');
    await deny(leaf, vic.id);
    const grandchild = await created([
      { type: '_type', reference: note },
      { type: 'name', string: 'basalt grandchild' },
      { type: '_parent', reference: leaf },
      { type: '_inheritrights', boolean: true },
    ]);
    const settled = await eventually(() => get(grandchild, t.owner), (res) => res.status === 200 && (res.body.entity._owner ?? []).length > 0);
    expect(JSON.stringify(settled.body.entity._viewer ?? [])).not.toContain(vic.id);
    expect((await get(grandchild)).status).toBe(404);
  });

  it('is lifted by deleting the _noaccess value', async () => {
    const { leaf } = await tree('granite');
    await deny(leaf, vic.id);
    expect((await get(leaf)).status).toBe(404);
    const denial = (await get(leaf, t.owner)).body.entity._noaccess[0]._id;
    expect((await request(api.app).delete(`/api/${t.db}/property/${denial}`).set('Authorization', t.owner.auth)).status).toBe(200);
    expect((await get(leaf)).status).toBe(200);
  });

  it('does not override sharing: a domain-shared entity stays readable to the denied person, who may not edit it', async () => {
    const shared = await created([
      { type: '_type', reference: note },
      { type: 'name', string: 'shale' },
      { type: '_sharing', string: 'domain' },
      { type: '_editor', reference: vic.id },
    ]);
    await deny(shared, vic.id);
    expect((await get(shared)).status).toBe(200);
    expect((await post(shared, [{ type: 'name', string: 'changed by Vic' }], vic)).status).toBe(403);
  });

  it('moves a right to _noaccess the way Entu’s rights drawer does: the value’s _id under _noaccess', async () => {
    const id = await created([{ type: '_type', reference: note }, { type: 'name', string: 'slate' }, { type: '_editor', reference: vic.id }]);
    const right = (await get(id, t.owner)).body.entity._editor.find((v: { reference: string }) => v.reference === vic.id)._id;
    const res = await post(id, [{ _id: right, type: '_noaccess', reference: vic.id }]);
    expect(res.status).toBe(200);
    const now = (await get(id, t.owner)).body.entity;
    expect(now._noaccess.map((v: { _id: string; reference: string }) => [v._id, v.reference])).toEqual([[right, vic.id]]);
    expect(JSON.stringify(now._editor ?? [])).not.toContain(vic.id);
    expect((await get(id)).status).toBe(404);
  });

  it('the change feed tells the denied person nothing more of the entity', async () => {
    const { top, leaf } = await tree('marble');
    const s = await liveStream(t.baseUrl, t.db, 'props=name,secret', { Authorization: vic.auth });
    streams.push(s);
    expect(s.status).toBe(200);
    await deny(leaf, vic.id);
    expect((await post(leaf, [{ type: 'secret', string: 'marble moved' }])).status).toBe(200);
    expect((await post(top, [{ type: 'name', string: 'marble folder, renamed' }])).status).toBe(200);
    await s.next((event) => event.data.entity === top && event.data.kind === 'updated');
    expect(JSON.stringify(s.events)).not.toContain('marble moved');
    const afterDenial = s.events.filter((event) => event.data.entity === leaf && event.data.inView === true && event.data.properties?.includes('secret'));
    expect(afterDenial).toEqual([]);
  });

  it('what the person’s own entities copy of it — labels and formulas — goes', async () => {
    const target = await created([{ type: '_type', reference: note }, { type: 'name', string: 'Plan A' }, { type: 'secret', string: 'one' }, { type: '_viewer', reference: vic.id }]);
    const clip = await created([{ type: '_type', reference: clipping }, { type: 'source', reference: target }], vic);
    const copying = await eventually(() => get(clip), (res) => res.body.entity?.copied?.[0]?.string === 'one');
    expect(copying.body.entity.source[0]).toMatchObject({ reference: target, string: 'Plan A' });

    await deny(target, vic.id);
    const cut = await eventually(() => get(clip), (res) => res.body.entity?.copied === undefined && res.body.entity?.source?.[0]?.string === undefined);
    expect(cut.body.entity.source[0].reference).toBe(target);
    expect(JSON.stringify(cut.body.entity)).not.toMatch(/Plan A|"one"/);
  });

  describe('who may deny whom', () => {
    it('only owners: an editor is refused, and nothing is written', async () => {
      const id = await created([{ type: '_type', reference: note }, { type: 'name', string: 'x' }, { type: '_editor', reference: vic.id }]);
      const stranger = await t.newPerson('Sid');
      expect((await post(id, [{ type: '_noaccess', reference: stranger.id }], vic)).status).toBe(403);
      expect((await get(id, t.owner)).body.entity._noaccess).toBeUndefined();
    });

    it('the last owner cannot be denied; one of two can', async () => {
      const id = await created([{ type: '_type', reference: note }, { type: 'name', string: 'y' }]);
      expect((await post(id, [{ type: '_noaccess', reference: t.owner.id }])).status).toBe(400);
      expect((await post(id, [{ type: '_owner', reference: vic.id }, { type: '_noaccess', reference: t.owner.id }])).status).toBe(200);
      expect((await get(id, t.owner)).status).toBe(404);
      expect((await get(id, vic)).status).toBe(200);
    });

    it.each([
      ['an entity that is no person', async () => folder],
      ['an id that does not exist', async () => '0'.repeat(24)],
      ['a malformed id', async () => 'not-an-id'],
      ['a $-operator', async () => ({ $ne: null })],
      ['__proto__ as the id', async () => '__proto__'],
      ['a person of another database', async () => other.owner.id],
    ])('refuses %s as the denied person: 400, nothing written', async (_, target) => {
      const id = await created([{ type: '_type', reference: note }, { type: 'name', string: 'z' }]);
      const res = await post(id, [{ type: '_noaccess', reference: await target() }]);
      expect(res.status).toBe(400);
      expect((await get(id, t.owner)).body.entity._noaccess).toBeUndefined();
    });
  });
});
