import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from '../../api/test/eventually';
import { testApi, type TestApi } from '../../api/test/support';
import { testTenant, type Person, type TestTenant } from '../../api/test/tenant';

// SPEC §9: effects of a write on other entities are the worker's jobs, and they settle.
describe('cross-entity effects, with the worker running', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let invoice: string;
  let row: string;
  let company: string;
  let contact: string;

  beforeAll(async () => {
    api = testApi();
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    t = await testTenant(api);
    invoice = await t.defineType('invoice', [
      { name: 'title', type: 'string' },
      { name: 'total', type: 'number', formula: '_child.row.amount SUM' },
      { name: 'rows', type: 'number', formula: '_child.row._id COUNT' },
      { name: 'summary', type: 'string', formula: "title ': ' total CONCAT" },
    ]);
    row = await t.defineType('row', [{ name: 'amount', type: 'number' }]);
    company = await t.defineType('company', [
      { name: 'name', type: 'string' },
      { name: 'staff', type: 'number', formula: '_referrer.contact._id COUNT' },
    ]);
    contact = await t.defineType('contact', [
      { name: 'name', type: 'string' },
      { name: 'employer', type: 'reference' },
      { name: 'works_at', type: 'string', formula: 'employer.company.name' },
    ]);
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await api.close();
  });

  const get = async (id: string, by: Person = t.owner) => {
    const res = await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth);
    return res.status === 200 ? res.body.entity : { status: res.status };
  };
  const post = (id: string, values: object[], by: Person = t.owner) =>
    request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth).send(values);
  const created = async (values: object[], by: Person = t.owner) => {
    const res = await t.create(values, by);
    expect(res.status).toBe(201);
    return res.body._id as string;
  };
  const numberOf = (entity: Record<string, { number?: number }[]>, name: string) => entity[name]?.[0]?.number;

  it('an invoice sums its rows as rows are added, changed and deleted', async () => {
    const id = await created([{ type: '_type', reference: invoice }, { type: 'title', string: 'March' }]);
    const rows: string[] = [];
    for (const amount of [10, 20.5, 30]) {
      rows.push(await created([{ type: '_type', reference: row }, { type: '_parent', reference: id }, { type: 'amount', number: amount }]));
    }
    let entity = await eventually(() => get(id), (e) => numberOf(e, 'total') === 60.5 && numberOf(e, 'rows') === 3);
    // An own formula reading a computed one follows it.
    expect(entity.summary[0].string).toBe('March: 60.5');

    const amount = (await get(rows[1]!)).amount[0]._id;
    expect((await post(rows[1]!, [{ type: 'amount', _id: amount, number: 5 }])).status).toBe(200);
    await eventually(() => get(id), (e) => numberOf(e, 'total') === 45);

    expect((await request(api.app).delete(`/api/${t.db}/entity/${rows[0]}`).set('Authorization', t.owner.auth)).status).toBe(200);
    entity = await eventually(() => get(id), (e) => numberOf(e, 'total') === 35 && numberOf(e, 'rows') === 2);
    expect(entity.summary[0].string).toBe('March: 35');

    // Moving a row to another invoice moves its amount too.
    const other = await created([{ type: '_type', reference: invoice }, { type: 'title', string: 'April' }]);
    const parent = (await get(rows[2]!))._parent[0]._id;
    expect((await post(rows[2]!, [{ type: '_parent', _id: parent, reference: other }])).status).toBe(200);
    await eventually(() => get(id), (e) => numberOf(e, 'total') === 5);
    await eventually(() => get(other), (e) => numberOf(e, 'total') === 30);
  });

  it('a reference label follows a rename; reference and referrer formulas follow too', async () => {
    const acme = await created([{ type: '_type', reference: company }, { type: 'name', string: 'Acme' }]);
    const ann = await created([{ type: '_type', reference: contact }, { type: 'name', string: 'Ann' }, { type: 'employer', reference: acme }]);
    // The label is set by the write itself (the target was loaded to check it).
    const fresh = await get(ann);
    expect(fresh.employer[0]).toMatchObject({ reference: acme, string: 'Acme' });
    // So are the references the server adds, and the type's.
    expect([fresh._owner[0].string, fresh._created[0].string, fresh._type[0].string]).toEqual(['Owner', 'Owner', 'contact']);
    await eventually(() => get(ann), (e) => e.works_at?.[0]?.string === 'Acme');
    await eventually(() => get(acme), (e) => numberOf(e, 'staff') === 1);

    const name = (await get(acme)).name[0]._id;
    expect((await post(acme, [{ type: 'name', _id: name, string: 'Acme Rockets' }])).status).toBe(200);
    const renamed = await eventually(() => get(ann), (e) => e.employer[0].string === 'Acme Rockets' && e.works_at?.[0]?.string === 'Acme Rockets');
    expect(renamed.employer[0].reference).toBe(acme);
  });

  it('deleting an entity removes the references to it, and what read it', async () => {
    const gone = await created([{ type: '_type', reference: company }, { type: 'name', string: 'Gone Inc' }]);
    const bob = await created([{ type: '_type', reference: contact }, { type: 'name', string: 'Bob' }, { type: 'employer', reference: gone }]);
    await eventually(() => get(bob), (e) => e.works_at?.[0]?.string === 'Gone Inc');
    expect((await request(api.app).delete(`/api/${t.db}/entity/${gone}`).set('Authorization', t.owner.auth)).status).toBe(200);
    const after = await eventually(() => get(bob), (e) => e.employer === undefined);
    expect(after.works_at).toBeUndefined();
    expect(after.name[0].string).toBe('Bob');
  });

  it('inherited rights reach grandchildren and leave when _inheritrights is turned off', async () => {
    const viewer = await t.newPerson('Vera');
    const root = await created([{ type: '_type', reference: invoice }, { type: 'title', string: 'root' }, { type: '_viewer', reference: viewer.id }]);
    const child = await created([{ type: '_type', reference: invoice }, { type: '_parent', reference: root }, { type: '_inheritrights', boolean: true }]);
    const grandchild = await created([{ type: '_type', reference: invoice }, { type: '_parent', reference: child }, { type: '_inheritrights', boolean: true }]);
    expect(await get(grandchild, viewer)).toEqual({ status: 404 });
    const seen = await eventually(() => get(grandchild, viewer), (e) => e._id === grandchild);
    expect(seen._viewer.find((v: { reference: string }) => v.reference === viewer.id)).toMatchObject({ inherited: true });
    // The list shows it too (the read index holds inherited rights).
    const list = await request(api.app).get(`/api/${t.db}/entity?_parent.reference=${child}`).set('Authorization', viewer.auth);
    expect(list.body.entities.map((e: { _id: string }) => e._id)).toEqual([grandchild]);

    // An inherited right is not the child's to change.
    const inherited = seen._viewer.find((v: { inherited?: boolean }) => v.inherited)._id;
    expect((await request(api.app).delete(`/api/${t.db}/property/${inherited}`).set('Authorization', t.owner.auth)).status).toBe(400);

    const flag = (await get(child))._inheritrights[0]._id;
    expect((await post(child, [{ type: '_inheritrights', _id: flag, boolean: false }])).status).toBe(200);
    await eventually(() => get(grandchild, viewer), (e) => e.status === 404);
    expect(await get(child, viewer)).toEqual({ status: 404 });
    expect((await get(root, viewer))._id).toBe(root);
  });

  describe('derived values respect read rights (issue 14)', () => {
    let memo: string;
    let clipping: string;
    let note: string;
    beforeAll(async () => {
      memo = await t.defineType('memo', [
        { name: 'name', type: 'string' },
        { name: 'secret', type: 'string' },
      ]);
      clipping = await t.defineType('clipping', [
        { name: 'source', type: 'reference' },
        { name: 'copied', type: 'string', formula: 'source.*.secret' },
      ]);
      note = await t.defineType('note', [
        { name: 'about', type: 'reference' },
        { name: 'secret', type: 'string' },
      ]);
    });
    const valueOf = (entity: Record<string, { string?: string }[]>, name: string) => entity[name]?.[0]?.string;

    it("a reader whose _viewer is removed stops receiving the target's values through labels and formulas", async () => {
      const reader = await t.newPerson('Rita');
      const target = await created([{ type: '_type', reference: memo }, { type: 'name', string: 'Plan A' }, { type: 'secret', string: 'one' }, { type: '_viewer', reference: reader.id }]);
      const clip = await created([{ type: '_type', reference: clipping }, { type: 'source', reference: target }], reader);
      const copying = await eventually(() => get(clip, reader), (e) => valueOf(e, 'copied') === 'one');
      expect(copying.source[0]).toMatchObject({ reference: target, string: 'Plan A' });

      const right = (await get(target))._viewer.find((v: { reference: string }) => v.reference === reader.id)._id;
      expect((await request(api.app).delete(`/api/${t.db}/property/${right}`).set('Authorization', t.owner.auth)).status).toBe(200);
      const [name, secret] = await get(target).then((e) => [e.name[0]._id, e.secret[0]._id]);
      expect((await post(target, [{ type: 'name', _id: name, string: 'Plan B' }, { type: 'secret', _id: secret, string: 'two' }])).status).toBe(200);

      // The copies go; the reference stays (the reader's own value), without its label.
      const revoked = await eventually(() => get(clip, reader), (e) => e.copied === undefined && valueOf(e, 'source') === undefined);
      expect(revoked.source[0].reference).toBe(target);
      await eventually(() => api.deps.jobs.counts(), (counts) => counts.waiting! + counts.active! + counts.delayed! === 0);
      expect(JSON.stringify(await get(clip, reader))).not.toMatch(/Plan B|two/);

      // Given the right again, the reader's clipping follows the target again.
      expect((await post(target, [{ type: '_viewer', reference: reader.id }])).status).toBe(200);
      const restored = await eventually(() => get(clip, reader), (e) => valueOf(e, 'copied') === 'two');
      expect(restored.source[0].string).toBe('Plan B');
    });

    it("a member's _referrer formula reads only the referrers its owners can read", async () => {
      const member = await t.newPerson('Mia');
      const hub = await t.defineType(
        'hub',
        [
          { name: 'seen', type: 'string', formula: '_referrer.*.secret CONCAT' },
          { name: 'count', type: 'number', formula: '_referrer.*._id COUNT' },
        ],
        member,
      );
      const h = await created([{ type: '_type', reference: hub }, { type: '_sharing', string: 'domain' }], member);
      // The owner links a private note and then a domain-shared one to the member's hub.
      const hidden = await created([{ type: '_type', reference: note }, { type: 'about', reference: h }, { type: 'secret', string: 'private' }]);
      await created([{ type: '_type', reference: note }, { type: 'about', reference: h }, { type: 'secret', string: 'shared' }, { type: '_sharing', string: 'domain' }]);
      // Once the hub was settled after the second note, it was settled having both to read.
      const settled = await eventually(() => get(h, member), (e) => (valueOf(e, 'seen') ?? '').includes('shared'));
      expect(valueOf(settled, 'seen')).toBe('shared');
      expect(numberOf(settled, 'count')).toBe(1);

      // Sharing the private note with the member counts as a change the hub must see.
      expect((await post(hidden, [{ type: '_viewer', reference: member.id }])).status).toBe(200);
      const shared = await eventually(() => get(h, member), (e) => numberOf(e, 'count') === 2);
      expect(valueOf(shared, 'seen')).toBe('privateshared');
    });
  });

  it('a formula cycle that never settles is cut off, and the worker goes on', async () => {
    const node = await t.defineType('node', [
      { name: 'peer', type: 'reference' },
      { name: 'value', type: 'number', formula: 'peer.node.value 1 SUM' },
    ]);
    const a = await created([{ type: '_type', reference: node }]);
    const b = await created([{ type: '_type', reference: node }, { type: 'peer', reference: a }]);
    expect((await post(a, [{ type: 'peer', reference: b }])).status).toBe(200);
    // Each step adds one: the values climb…
    await eventually(
      async () => [numberOf(await get(a), 'value') ?? 0, numberOf(await get(b), 'value') ?? 0],
      (values) => values.every((value) => value > 10),
      60_000,
    );
    // …until the cascade stops at its depth limit and the queue drains.
    await eventually(
      () => api.deps.jobs.counts(),
      (counts) => counts.waiting! + counts.active! + counts.delayed! + counts.prioritized! === 0,
      60_000,
    );
    const values = [numberOf(await get(a), 'value')!, numberOf(await get(b), 'value')!];
    for (const value of values) {
      expect(Number.isInteger(value)).toBe(true);
      expect(value).toBeLessThan(200);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect([numberOf(await get(a), 'value'), numberOf(await get(b), 'value')]).toEqual(values);
    // Nothing else is stuck behind it.
    const id = await created([{ type: '_type', reference: invoice }]);
    await created([{ type: '_type', reference: row }, { type: '_parent', reference: id }, { type: 'amount', number: 7 }]);
    await eventually(() => get(id), (e) => numberOf(e, 'total') === 7);
  });
});
