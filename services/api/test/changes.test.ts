import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { liveStream, SseReader, type SseEvent } from './sse';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

// Issue 18: the change feed, against the real stack over real sockets; the worker runs so that
// derived changes (formulas) are events too.
describe('GET /api/{db}/changes', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let book: string;
  let stranger: Person;
  let reader: Person;
  const open: SseReader[] = [];

  beforeAll(async () => {
    api = testApi({ KEY_RECHECK_MS: '500', CHANGE_STREAM_HEARTBEAT_MS: '300' });
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    t = await testTenant(api);
    book = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'pages', type: 'number' },
      { name: 'tag', type: 'string', list: true },
      { name: 'summary', type: 'string', formula: "title ' (' pages ')' CONCAT" },
    ]);
    stranger = await t.newPerson('Stranger');
    reader = await t.newPerson('Reader');
  });
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await api.close();
  });

  /** A live stream as `by` (null: anonymous). */
  const stream = async (query = '', by: Person | null = t.owner, headers: Record<string, string> = {}) => {
    const s = await liveStream(t.baseUrl, t.db, query, { ...(by ? { Authorization: by.auth } : {}), ...headers });
    open.push(s);
    return s;
  };
  const created = async (values: object[], by: Person = t.owner) => {
    const res = await t.create([{ type: '_type', reference: book }, ...values], by);
    expect(res.status).toBe(201);
    return res.body._id as string;
  };
  const post = async (id: string, values: object[], by: Person = t.owner) => {
    const res = await request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth).send(values);
    expect(res.status).toBe(200);
    return res.body.properties as { _id: string; type: string }[];
  };
  const of = (id: string) => (event: SseEvent) => event.data.entity === id;
  // An entity's versions count every write of its document, the worker's deliveries of its outbox
  // included: its events' versions increase, with gaps where the worker wrote in between.
  const increasing = (versions: number[]) => versions.every((version, i) => i === 0 || version > versions[i - 1]!);

  it('tells every kind of change, in order, with who, when, which properties and the version', async () => {
    const s = await stream();
    const id = await created([{ type: 'title', string: 'Dune' }]);
    const tag = (await post(id, [{ type: 'tag', string: 'sf' }])).find((value) => value.type === 'tag')!._id;
    await post(id, [{ type: 'pages', number: 412 }]);
    expect((await request(api.app).delete(`/api/${t.db}/property/${tag}`).set('Authorization', t.owner.auth)).status).toBe(200);
    expect((await request(api.app).delete(`/api/${t.db}/entity/${id}`).set('Authorization', t.owner.auth)).status).toBe(200);

    const events = [];
    for (let i = 0; i < 5; i++) events.push(await s.next(of(id)));
    expect(events.map((e) => [e.event, e.data.kind])).toEqual([
      ['created', 'created'],
      ['updated', 'updated'],
      ['updated', 'updated'],
      ['updated', 'updated'],
      ['deleted', 'deleted'],
    ]);
    expect(increasing(events.map((e) => e.data.version))).toBe(true);
    expect(events[0]!.data.version).toBe(1);
    expect(events[0]!.data).toMatchObject({ db: t.db, entity: id, type: book, by: t.owner.id, inView: true });
    expect(events[0]!.data.properties).toEqual(expect.arrayContaining(['_type', 'title', '_owner', '_created', 'summary']));
    expect(events[1]!.data.properties).toEqual(['tag']);
    // The own formula is recomputed in the same request: one change, both properties.
    expect(events[2]!.data.properties).toEqual(['pages', 'summary']);
    expect(events[3]!.data.properties).toEqual(['tag']);
    expect(events[4]!.data).toMatchObject({ kind: 'deleted', inView: false, properties: [] });
    // Event ids are the SSE ids, increasing.
    expect(events.every((e) => e.id === e.data.id)).toBe(true);
    const positions = events.map((e) => e.id!.split('.')[0]!.split('-').map(Number));
    for (let i = 1; i < positions.length; i++) expect(positions[i]![0]! * 1e6 + positions[i]![1]!).toBeGreaterThan(positions[i - 1]![0]! * 1e6 + positions[i - 1]![1]!);
    for (const event of events) expect(Date.parse(event.data.at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('concurrent writers of one entity: every version once, in the order of the versions', async () => {
    const s = await stream();
    const id = await created([{ type: 'title', string: 'busy' }]);
    await Promise.all(Array.from({ length: 8 }, (_, i) => post(id, [{ type: 'tag', string: `t${i}` }])));
    const events = [];
    for (let i = 0; i < 9; i++) events.push((await s.next(of(id))).data);
    expect(events.map((event) => [event.kind, event.properties.includes('tag')])).toEqual([['created', false], ...Array.from({ length: 8 }, () => ['updated', true])]);
    expect(increasing(events.map((event) => event.version))).toBe(true);
  });

  it('`props` adds the values as the change left them, as a read would show them', async () => {
    const s = await stream('props=title,pages');
    const id = await created([{ type: 'title', string: 'Emma' }, { type: 'pages', number: 300 }]);
    await post(id, [{ type: 'title', string: 'Emma (2nd ed.)' }]);
    const first = await s.next(of(id));
    const second = await s.next(of(id));
    expect(first.data.values).toEqual({ _id: id, title: [expect.objectContaining({ string: 'Emma' })], pages: [expect.objectContaining({ number: 300 })] });
    expect(second.data.values.title).toEqual([expect.objectContaining({ string: 'Emma (2nd ed.)' })]);
    expect(Object.keys(second.data.values).sort()).toEqual(['_id', 'pages', 'title']);
  });

  it('`props` values too long for the log are read from the database', async () => {
    const s = await stream('props=title');
    const long = 'x'.repeat(5000);
    const id = await created([{ type: 'title', string: long }]);
    expect((await s.next(of(id))).data.values.title[0].string).toBe(long);
  });

  it('filters include and exclude, and an entity leaving the view is told once', async () => {
    const s = await stream(`_type.reference=${book}&pages.number.gte=100`);
    const other = await created([{ type: 'title', string: 'Short' }, { type: 'pages', number: 20 }]);
    const id = await created([{ type: 'title', string: 'Long' }, { type: 'pages', number: 150 }]);
    await post(other, [{ type: 'title', string: 'Still short' }]);
    await post(id, [{ type: 'pages', number: 50 }]); // leaves the view
    await post(id, [{ type: 'pages', number: 30 }]); // outside before and after: nothing
    await post(id, [{ type: 'pages', number: 120 }]); // back in
    const marker = await created([{ type: 'title', string: 'Marker' }, { type: 'pages', number: 999 }]);
    await s.next(of(marker));
    expect(s.changes.filter((e) => e.data.entity === other)).toEqual([]);
    const seen = s.changes.filter((e) => e.data.entity === id);
    expect(seen.map((e) => [e.data.kind, e.data.inView, e.data.properties])).toEqual([
      ['created', true, expect.arrayContaining(['pages', 'title'])],
      ['updated', false, []],
      ['updated', true, ['pages', 'summary']],
    ]);
    expect(increasing(seen.map((e) => e.data.version))).toBe(true);
  });

  it('a private entity never reaches another person; anonymous callers see public entities only', async () => {
    const strangers = await stream('', stranger);
    const anonymous = await stream('', null);
    const secret = await created([{ type: 'title', string: 'Private diary' }]);
    await post(secret, [{ type: 'title', string: 'Private diary, vol. 2' }]);
    const shared = await created([{ type: 'title', string: 'Domain book' }, { type: '_sharing', string: 'domain' }]);
    const open = await created([{ type: 'title', string: 'Open book' }, { type: '_sharing', string: 'public' }]);
    expect((await strangers.next(of(shared))).data.inView).toBe(true);
    await strangers.next(of(open));
    await anonymous.next(of(open));
    expect(strangers.changes.filter((e) => e.data.entity === secret)).toEqual([]);
    expect(anonymous.changes.filter((e) => e.data.entity === secret)).toEqual([]);
    expect(anonymous.changes.filter((e) => e.data.entity === shared)).toEqual([]);
  });

  it('a removed right stops the events, after one that says the entity left the view', async () => {
    const s = await stream('props=title', reader);
    const id = await created([{ type: 'title', string: 'Lent' }]);
    const right = (await post(id, [{ type: '_viewer', reference: reader.id }])).find((value) => value.type === '_viewer')!._id;
    const granted = await s.next(of(id));
    expect(granted.data).toMatchObject({ kind: 'updated', inView: true, properties: ['_viewer'] });
    expect(granted.data.values.title[0].string).toBe('Lent');
    expect((await request(api.app).delete(`/api/${t.db}/property/${right}`).set('Authorization', t.owner.auth)).status).toBe(200);
    const revoked = await s.next(of(id));
    expect(revoked.data).toMatchObject({ kind: 'updated', inView: false, properties: [] });
    expect(revoked.data.version).toBeGreaterThan(granted.data.version);
    expect(revoked.data.values).toBeUndefined();
    await post(id, [{ type: 'title', string: 'Lent no more' }]);
    const marker = await created([{ type: 'title', string: 'Marker' }, { type: '_sharing', string: 'domain' }]);
    await s.next(of(marker));
    expect(s.changes.filter((e) => e.data.entity === id).map((e) => e.data.version)).toEqual([granted.data.version, revoked.data.version]);
  });

  it('the worker\'s derived changes are events too', async () => {
    const invoice = await t.defineType('invoice', [
      { name: 'title', type: 'string' },
      { name: 'total', type: 'number', formula: '_child.row.amount SUM' },
    ]);
    const row = await t.defineType('row', [{ name: 'amount', type: 'number' }]);
    const s = await stream('props=total');
    const inv = (await t.create([{ type: '_type', reference: invoice }, { type: 'title', string: 'March' }])).body._id as string;
    await t.create([{ type: '_type', reference: row }, { type: '_parent', reference: inv }, { type: 'amount', number: 40 }]);
    const derived = await s.next((e) => e.data.entity === inv && e.data.worker === true, 30_000);
    expect(derived.data).toMatchObject({ kind: 'updated', by: null, worker: true, properties: ['total'] });
    expect(derived.data.values.total[0].number).toBe(40);
  });

  it('heartbeats keep an idle stream open', async () => {
    const s = await stream();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(s.comments).toBeGreaterThanOrEqual(2);
    expect(s.ended).toBe(false);
  });

  it('a revoked API key closes its streams within the recheck interval', async () => {
    const person = await t.newPerson('Soon revoked');
    const s = await stream('', person);
    const key = (await request(api.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', t.owner.auth)).body.entity._api_key[0]._id as string;
    expect((await request(api.app).delete(`/api/${t.db}/property/${key}`).set('Authorization', t.owner.auth)).status).toBe(200);
    expect((await s.next((e) => e.event === 'revoked', 5000)).data.reason).toMatch(/revoked/);
    await s.closedByServer(2000);
  });
});
