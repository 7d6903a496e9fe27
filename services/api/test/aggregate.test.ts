import { indexed } from '@entia/domain';
import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from './eventually';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

// SPEC §7: /aggregate recomputes now (one entity) or as a job (the whole database).
describe('/aggregate', () => {
  let api: TestApi;
  let t: TestTenant;
  let other: TestTenant;
  let invoice: string;
  let row: string;
  let editor: Person;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    other = await testTenant(api);
    invoice = await t.defineType('invoice', [{ name: 'total', type: 'number', formula: '_child.row.amount SUM' }]);
    row = await t.defineType('row', [{ name: 'amount', type: 'number' }]);
    editor = await t.newPerson('Ed');
  });
  afterAll(async () => {
    await other.close();
    await t.close();
    await api.close();
  });

  const created = async (values: object[]) => {
    const res = await t.create(values);
    expect(res.status).toBe(201);
    return res.body._id as string;
  };
  async function invoiceWithRows(...amounts: number[]): Promise<string> {
    const id = await created([{ type: '_type', reference: invoice }, { type: '_editor', reference: editor.id }]);
    for (const amount of amounts) await created([{ type: '_type', reference: row }, { type: '_parent', reference: id }, { type: 'amount', number: amount }]);
    return id;
  }
  const totalOf = (entity: { total?: { number: number }[] }) => entity.total?.[0]?.number;

  describe('one entity (no worker running: the values come from the request itself)', () => {
    it('POST returns the entity with fresh formula values, and later GETs show them', async () => {
      const id = await invoiceWithRows(1, 2, 3.5);
      const before = await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth);
      expect(totalOf(before.body.entity)).toBeUndefined();
      const res = await request(api.app).post(`/api/${t.db}/entity/${id}/aggregate`).set('Authorization', editor.auth);
      expect(res.status).toBe(200);
      expect(totalOf(res.body.entity)).toBe(6.5);
      expect(res.headers['cache-control']).toBe('no-store');
      const after = await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth);
      expect(totalOf(after.body.entity)).toBe(6.5);
    });

    it('GET does the same; repeating changes nothing', async () => {
      const id = await invoiceWithRows(4);
      const first = await request(api.app).get(`/api/${t.db}/entity/${id}/aggregate`).set('Authorization', t.owner.auth);
      const second = await request(api.app).get(`/api/${t.db}/entity/${id}/aggregate`).set('Authorization', t.owner.auth);
      expect([first.status, totalOf(first.body.entity)]).toEqual([200, 4]);
      expect(second.body.entity.total).toEqual(first.body.entity.total);
    });

    it('recomputes persons created through the API, whose recomputation only relabels their own rights', async () => {
      for (const name of ['Ann', 'Bob', 'Cy']) {
        const person = await t.newPerson(name);
        const res = await request(api.app).post(`/api/${t.db}/entity/${person.id}/aggregate`).set('Authorization', t.owner.auth);
        expect(res.status).toBe(200);
        expect(res.body.entity._id).toBe(person.id);
        expect(res.body.entity.name[0].string).toBe(name);
      }
    });

    it('refuses anonymous callers, unreadable, unknown and malformed ids', async () => {
      const id = await invoiceWithRows(1);
      const stranger = await t.newPerson('Sam');
      expect((await request(api.app).post(`/api/${t.db}/entity/${id}/aggregate`)).status).toBe(401);
      expect((await request(api.app).post(`/api/${t.db}/entity/${id}/aggregate`).set('Authorization', stranger.auth)).status).toBe(404);
      expect((await request(api.app).post(`/api/${t.db}/entity/${'0'.repeat(24)}/aggregate`).set('Authorization', t.owner.auth)).status).toBe(404);
      for (const bad of ['nothex', '$where', '%7B%22%24gt%22%3A1%7D']) {
        expect((await request(api.app).post(`/api/${t.db}/entity/${bad}/aggregate`).set('Authorization', t.owner.auth)).status).toBe(404);
      }
      // Another tenant's entity id, through this database: not found.
      expect((await request(api.app).post(`/api/${t.db}/entity/${other.owner.id}/aggregate`).set('Authorization', t.owner.auth)).status).toBe(404);
      expect((await request(api.app).post(`/api/${other.db}/entity/${id}/aggregate`).set('Authorization', t.owner.auth)).status).toBe(403);
    });
  });

  describe('the whole database (a job on the worker)', () => {
    let worker: RunningWorker;
    beforeAll(() => {
      worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    });
    afterAll(() => worker.close());

    it('recomputes every entity, with readable progress, and repairs values written around the API', async () => {
      const id = await invoiceWithRows(10, 20);
      await eventually(
        async () => (await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).body.entity,
        (e) => totalOf(e) === 30,
      );
      // A stale value, as a crash between a write and its job could leave it.
      // The worker may still be clearing its own bookkeeping on the entity after the total
      // settled, so the hand-written change retries on a version conflict, as any writer would.
      const entities = api.deps.store.entities(t.db);
      const writtenByHand = await eventually(async () => {
        const stored = (await entities.get(id))!;
        stored.entity.properties.total![0]!.number = 999;
        return entities.commit(id, stored.version, { kind: 'replace', stored: indexed(stored.entity, new Set()) }, [], 'by-hand');
      }, (committed) => committed);
      expect(writtenByHand).toBe(true);

      const res = await request(api.app).post(`/api/${t.db}/aggregate`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(202);
      expect(res.headers.location).toBe(`/api/${t.db}/aggregate/${res.body.id}`);
      const status = await eventually(
        async () => (await request(api.app).get(res.headers.location!).set('Authorization', t.owner.auth)).body,
        (body) => body.state === 'completed',
      );
      const count = await entities.count();
      expect(status.progress).toEqual({ done: count, total: count });
      expect(status.result).toEqual({ entities: count });
      const fresh = await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth);
      expect(totalOf(fresh.body.entity)).toBe(30);
    });

    const rebuild = async () => {
      const res = await request(api.app).post(`/api/${t.db}/aggregate`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(202);
      return res.headers.location!;
    };
    const statusOf = async (location: string) => (await request(api.app).get(location).set('Authorization', t.owner.auth)).body;

    it('completes in a database holding several persons created through the API', async () => {
      for (const name of ['Dee', 'Eve', 'Fay']) await t.newPerson(name);
      const location = await rebuild();
      const status = await eventually(() => statusOf(location), (body) => body.state === 'completed' || body.state === 'failed');
      expect(status.state).toBe('completed');
    });

    it('shows {done, total} progress while it runs', async () => {
      // Enough entities that the rebuild runs long enough to be watched, on any engine.
      for (let batch = 0; batch < 2; batch++) {
        await Promise.all(Array.from({ length: 25 }, (_, i) => created([{ type: '_type', reference: row }, { type: 'amount', number: batch * 25 + i }])));
      }
      const total = await api.deps.store.entities(t.db).count();
      const location = await rebuild();
      const seen: { state: string; progress: unknown }[] = [];
      await eventually(
        async () => {
          const body = await statusOf(location);
          seen.push({ state: body.state, progress: body.progress });
          return body;
        },
        (body) => body.state === 'completed',
        120_000,
      );
      const running = seen.filter((sample) => sample.state === 'active');
      expect(running.length).toBeGreaterThan(0);
      for (const sample of running) expect(sample.progress).toEqual({ done: expect.any(Number), total: expect.any(Number) });
      const progress = running.map((sample) => sample.progress as { done: number; total: number });
      expect(progress.every((p) => p.total >= total && p.done <= p.total)).toBe(true);
      // Seen part-way, not only at the end.
      expect(progress.some((p) => p.done < p.total)).toBe(true);
    }, 180_000);

    it('needs the owner right on the database entity; job ids of another database are not found', async () => {
      expect((await request(api.app).post(`/api/${t.db}/aggregate`)).status).toBe(401);
      // The database entity is readable by its persons (domain): a non-owner is refused, not misled.
      expect((await request(api.app).post(`/api/${t.db}/aggregate`).set('Authorization', editor.auth)).status).toBe(403);

      const theirs = await request(api.app).post(`/api/${other.db}/aggregate`).set('Authorization', other.owner.auth);
      expect(theirs.status).toBe(202);
      expect((await request(api.app).get(`/api/${t.db}/aggregate/${theirs.body.id}`).set('Authorization', t.owner.auth)).status).toBe(404);
      expect((await request(api.app).get(`/api/${t.db}/aggregate/rebuild-${t.db}-nope`).set('Authorization', t.owner.auth)).status).toBe(404);
      // An id outside the pattern of rebuild ids names nothing either (issue 14: path parameters are 404, not 400).
      expect((await request(api.app).get(`/api/${t.db}/aggregate/${'x'.repeat(300)}`).set('Authorization', t.owner.auth)).status).toBe(404);
      expect((await request(api.app).get(`/api/${other.db}/aggregate/${theirs.body.id}`).set('Authorization', t.owner.auth)).status).toBe(403);
    });
  });
});
