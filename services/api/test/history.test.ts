import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from './eventually';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

interface Change {
  type: string;
  at: string;
  by: string | null;
  worker?: true;
  old?: Record<string, unknown> & { _id: string };
  new?: Record<string, unknown> & { _id: string };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Issue 16: every change of an entity is recorded, readable as history and as the entity at a moment.
describe('history and point-in-time reads', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let book: string;
  let shelf: string;
  let reader: Person;
  let stranger: Person;

  beforeAll(async () => {
    api = testApi();
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    t = await testTenant(api);
    book = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'tag', type: 'string', list: true },
      { name: 'pages', type: 'number' },
    ]);
    shelf = await t.defineType('shelf', [
      { name: 'name', type: 'string' },
      { name: 'pages', type: 'number', formula: '_child.book.pages SUM' },
    ]);
    reader = await t.newPerson('Reader');
    stranger = await t.newPerson('Stranger');
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await api.close();
  });

  // `null`: anonymous.
  const history = (id: string, by: Person | null = t.owner, query = '') => {
    const req = request(api.app).get(`/api/${t.db}/entity/${id}/history${query}`);
    return by ? req.set('Authorization', by.auth) : req;
  };
  const changesOf = async (id: string, by: Person = t.owner): Promise<Change[]> => {
    const res = await history(id, by, '?limit=1000');
    expect(res.status).toBe(200);
    return res.body.changes;
  };
  const entity = async (id: string, query = '', by: Person | null = t.owner) => {
    const req = request(api.app).get(`/api/${t.db}/entity/${id}${query}`);
    return by ? req.set('Authorization', by.auth) : req;
  };
  const post = (id: string, values: object[], by: Person = t.owner) => request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth).send(values);
  const remove = (path: string, by: Person = t.owner) => request(api.app).delete(`/api/${t.db}/${path}`).set('Authorization', by.auth);
  const created = async (values: object[]) => {
    const res = await t.create(values);
    expect(res.status).toBe(201);
    return res.body._id as string;
  };

  it('records each write exactly once, with old and new values, who and when; and answers the entity as it was after each', async () => {
    const states: Array<{ at: string; entity: Record<string, unknown> }> = [];
    // The moment right after a write was answered, and the entity as it was read then.
    const snapshot = async (id: string) => {
      const res = await entity(id);
      expect(res.status).toBe(200);
      await pause(5);
      states.push({ at: new Date().toISOString(), entity: res.body.entity });
      await pause(5);
    };
    const before = new Date().toISOString();
    await pause(5);
    const id = await created([
      { type: '_type', reference: book },
      { type: 'title', string: 'Dune' },
      { type: 'tag', string: 'sf' },
    ]);
    await snapshot(id);
    const title = (await entity(id)).body.entity.title[0];

    const [added] = (await post(id, [{ type: 'tag', string: 'classic' }])).body.properties;
    await snapshot(id);
    const [overwritten] = (await post(id, [{ _id: title._id, type: 'title', string: 'Dune (1965)' }])).body.properties;
    await snapshot(id);
    // A `list: false` value POSTed without `_id` replaces the one there: one change with both.
    const [replaced] = (await post(id, [{ type: 'title', string: 'Dune Messiah' }])).body.properties;
    await snapshot(id);
    expect((await remove(`property/${added._id}`)).status).toBe(200);
    await snapshot(id);
    const share = await post(id, [{ type: '_viewer', reference: reader.id }, { type: '_sharing', string: 'domain' }]);
    expect(share.status).toBe(200);
    // The answer lists the values in the order they were sent.
    const [viewerValue, sharingValue] = share.body.properties;
    await snapshot(id);

    const changes = await changesOf(id);
    // Newest first: the six writes after the creation, one change per value…
    expect(changes.slice(0, 6).map((c) => [c.type, c.old?._id ?? null, c.new?._id ?? null])).toEqual([
      ['_viewer', null, viewerValue._id],
      ['_sharing', null, sharingValue._id],
      ['tag', added._id, null],
      ['title', overwritten._id, replaced._id],
      ['title', title._id, title._id],
      ['tag', null, added._id],
    ]);
    // …then the creation: `_created` and every value it was created with, each once.
    const creation = changes.slice(6);
    // As stored: not `_changed` (computed), nor the owner the lower right lists also show (`property_type`).
    const firstValues = Object.entries(states[0]!.entity).flatMap(([name, list]) =>
      name === '_id' || name === '_changed' ? [] : (list as Array<{ _id: string; property_type?: string }>).filter((v) => !v.property_type).map((v) => `${name}:${v._id}`),
    );
    expect(creation.map((c) => `${c.type}:${c.new?._id}`).sort()).toEqual(firstValues.sort());
    expect(creation.every((c) => c.old === undefined)).toBe(true);
    expect(creation[creation.length - 1]!.type).toBe('_created');
    const byType = (type: string) => changes.filter((c) => c.type === type);
    expect(byType('title')[0]).toMatchObject({ old: { string: 'Dune (1965)' }, new: { string: 'Dune Messiah' }, by: t.owner.id });
    expect(byType('title')[1]).toMatchObject({ old: { string: 'Dune' }, new: { string: 'Dune (1965)' } });
    expect(changes.every((c) => c.by === t.owner.id && c.worker === undefined)).toBe(true);
    // When: the moment of the write, the same as the value's own `created.at`; in order.
    expect(byType('tag')[1]!.at).toBe(added.created.at);
    expect(changes.every((c) => c.at > before)).toBe(true);
    expect([...changes].reverse().map((c) => c.at)).toEqual(changes.map((c) => c.at).reverse().sort());

    // Once the worker delivered the outbox (which records the same rows again), still each once.
    await eventually(
      async () => (await request(api.app).get(`/api/${t.db}/entity/${id}/pending`).set('Authorization', t.owner.auth)).body,
      (body) => body.pending === false,
    );
    expect(await changesOf(id)).toEqual(changes);

    // Each earlier state, asked for by the moment after it was written: its values as they were
    // (the computed `_changed` and `_reference` are not history's: the changes they come from are).
    const recorded = (shown: Record<string, unknown>) => Object.fromEntries(Object.entries(shown).filter(([name]) => name !== '_changed' && name !== '_reference'));
    for (const state of states) {
      const then = await entity(id, `?at=${encodeURIComponent(state.at)}`);
      expect(then.status).toBe(200);
      expect(then.headers['cache-control']).toBe('no-store');
      expect(then.body.entity).toEqual(recorded(state.entity));
    }
    const withProps = await entity(id, `?at=${encodeURIComponent(states[1]!.at)}&props=tag`);
    expect(Object.keys(withProps.body.entity).sort()).toEqual(['_id', 'tag']);
    expect(withProps.body.entity.tag).toHaveLength(2);
    // Before it was created there was nothing; a time in the future is now.
    expect((await entity(id, `?at=${encodeURIComponent(before)}`)).status).toBe(404);
    expect((await entity(id, `?at=2999-01-01T00:00:00Z`)).body.entity).toEqual(recorded(states[states.length - 1]!.entity));

    // Paging: newest first, `count` all of them.
    const page = await history(id, t.owner, '?limit=2&skip=1');
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(changes.length);
    expect(page.body.changes).toEqual(changes.slice(1, 3));
    const onlyCount = await history(id, t.owner, '?limit=0');
    expect(onlyCount.body).toEqual({ changes: [], count: changes.length });
  });

  it('records the worker’s recomputed values as the worker’s', async () => {
    const parent = await created([{ type: '_type', reference: shelf }, { type: 'name', string: 'Fiction' }]);
    await created([{ type: '_type', reference: book }, { type: '_parent', reference: parent }, { type: 'pages', number: 100 }]);
    await created([{ type: '_type', reference: book }, { type: '_parent', reference: parent }, { type: 'pages', number: 50 }]);
    const settled = await eventually(
      () => changesOf(parent),
      (changes) => changes.some((c) => c.type === 'pages' && c.new?.number === 150),
    );
    const computed = settled.filter((c) => c.type === 'pages');
    expect(computed.every((c) => c.worker === true && c.by === null)).toBe(true);
    // Each recomputation that changed the sum is one change, old and new paired.
    expect(computed[0]).toMatchObject({ new: { number: 150 } });
    for (const change of computed.slice(0, -1)) expect(change.old).toBeDefined();
    // Settling again changes nothing and records nothing.
    expect((await request(api.app).post(`/api/${t.db}/entity/${parent}/aggregate`).set('Authorization', t.owner.auth)).status).toBe(200);
    await pause(500);
    expect((await changesOf(parent)).length).toBe(settled.length);
  });

  it('shows an API key change as *** and never its hash', async () => {
    const person = await t.newPerson('Keyholder');
    const changes = await changesOf(person.id);
    const keys = changes.filter((c) => c.type === '_api_key');
    expect(keys).toHaveLength(1);
    expect(keys[0]!.new!.string).toBe('***');
    const stored = (await api.deps.store.entities(t.db).get(person.id))!.entity.properties._api_key![0]!.string;
    expect(JSON.stringify(changes)).not.toContain(stored);
    const raw = await api.deps.store.database(t.db).collection('history').find({ entity: { $exists: true } }).toArray();
    expect(JSON.stringify(raw)).not.toContain(stored);
  });

  it('refuses callers who may not read the entity, now, with 404; a viewer reads it', async () => {
    const id = await created([{ type: '_type', reference: book }, { type: 'title', string: 'Secret' }]);
    const at = `?at=${encodeURIComponent(new Date().toISOString())}`;
    expect((await history(id, stranger)).status).toBe(404);
    expect((await history(id, null)).status).toBe(404);
    expect((await entity(id, at, stranger)).status).toBe(404);
    expect((await entity(id, at, null)).status).toBe(404);
    expect((await post(id, [{ type: '_viewer', reference: reader.id }])).status).toBe(200);
    expect((await history(id, reader)).status).toBe(200);
    expect((await entity(id, at, reader)).status).toBe(200);
    // History never widens access: rights as they are now, not as they were.
    const viewer = (await entity(id)).body.entity._viewer.find((v: { reference: string }) => v.reference === reader.id);
    expect((await remove(`property/${viewer._id}`)).status).toBe(200);
    expect((await history(id, reader)).status).toBe(404);
    expect((await entity(id, at, reader)).status).toBe(404);
    // Public: anyone reads its history.
    expect((await post(id, [{ type: '_sharing', string: 'public' }])).status).toBe(200);
    expect((await history(id, null)).status).toBe(200);
  });

  it('keeps the history of a deleted entity readable by its last owners only', async () => {
    const id = await created([{ type: '_type', reference: book }, { type: 'title', string: 'Gone' }, { type: '_sharing', string: 'domain' }]);
    const alive = new Date().toISOString();
    await pause(5);
    expect((await history(id, reader)).status).toBe(200);
    expect((await remove(`entity/${id}`)).status).toBe(200);
    const changes = await changesOf(id);
    expect(changes[0]).toMatchObject({ type: '_deleted', by: t.owner.id });
    expect(changes[0]!.old).toBeUndefined();
    expect((await history(id, reader)).status).toBe(404);
    expect((await history(id, null)).status).toBe(404);
    // As it was while it existed; nothing now.
    expect((await entity(id, `?at=${encodeURIComponent(alive)}`)).body.entity.title[0].string).toBe('Gone');
    expect((await entity(id, `?at=${encodeURIComponent(new Date().toISOString())}`)).status).toBe(404);
    expect((await entity(id, `?at=${encodeURIComponent(alive)}`, reader)).status).toBe(404);
    expect((await entity(id)).status).toBe(404);
  });

  it('answers malformed input with 400 and unknown ids with 404', async () => {
    const id = await created([{ type: '_type', reference: book }]);
    for (const at of ['yesterday', '2026-13-01T00:00:00Z', '2026-11-23', '', '{"$gt":""}', 'x'.repeat(100)]) {
      const res = await entity(id, `?at=${encodeURIComponent(at)}`);
      expect([at, res.status]).toEqual([at, 400]);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    }
    expect((await entity(id, '?at=2026-11-23T00:00:00Z&at=2026-11-24T00:00:00Z')).status).toBe(400);
    expect((await entity(id, '?at[$gt]=1')).status).toBe(400);
    for (const query of ['?limit=-1', '?limit=1001', '?limit=abc', '?skip=-1', '?skip=1.5', '?other=1', '?limit=1&limit=2', '?__proto__=1']) {
      expect([query, (await history(id, t.owner, query)).status]).toEqual([query, 400]);
    }
    expect((await history('not-an-id')).status).toBe(404);
    expect((await history('0123456789abcdef01234567')).status).toBe(404);
    expect((await request(api.app).get(`/api/nosuchdb_x/entity/${id}/history`).set('Authorization', t.owner.auth)).status).toBe(404);
    expect((await request(api.app).get(`/api/${t.db}/entity/${id}/history`).set('Authorization', 'Bearer forged')).status).toBe(401);
  });

  it('an entity of another tenant is 404', async () => {
    const other = await testTenant(api);
    try {
      const theirs = (await other.create([{ type: '_type', reference: other.types.entity }, { type: 'name', string: 'x' }])).body._id as string;
      expect((await history(theirs)).status).toBe(404);
      expect((await entity(theirs, `?at=${encodeURIComponent(new Date().toISOString())}`)).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});
