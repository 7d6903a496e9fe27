import { createApp, Lifecycle, scrubUrl } from '@entia/api';
import type { ChangeRecord } from '@entia/domain';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import request from 'supertest';
import { liveStream, SseReader } from './sse';
import { listening, testApi, type Listening, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// Issue 18: what bounds a change stream — limits per person and per process, tickets, hostile
// input, slow consumers, shutdown.
describe('change streams, bounded', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let lifecycle: Lifecycle;
  let registry: Registry;
  let served: Listening;
  let server: Server;
  let baseUrl: string;
  let t: TestTenant;
  let book: string;
  const open: SseReader[] = [];

  beforeAll(async () => {
    api = testApi({ CHANGE_STREAMS_PER_PERSON: '2', CHANGE_STREAM_BUFFER_BYTES: '65536' });
    lifecycle = new Lifecycle();
    registry = new Registry();
    // The app with a lifecycle and metrics this test can see.
    served = await listening(createApp(api.deps, lifecycle, registry));
    server = served.server;
    baseUrl = served.url;
    t = await testTenant(api);
    book = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'text', type: 'string', list: true },
    ]);
  });
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });
  afterAll(async () => {
    await served.close();
    await t.close();
    await api.close();
  });

  const auth = () => ({ Authorization: t.owner.auth });
  const track = (stream: SseReader) => {
    open.push(stream);
    return stream;
  };
  const metric = async (name: string, labels: Record<string, string> = {}) => {
    const found = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
    const value = found?.values.find((v) => Object.entries(labels).every(([k, l]) => (v.labels as Record<string, string>)[k] === l));
    return Number(value?.value ?? 0);
  };
  const until = async (check: () => Promise<boolean>, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('not reached in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  describe('refuses, with a problem and never a 500', () => {
    it.each([
      ['a filter of an unknown property', 'nope.string=x', 400, 'nope.string'],
      ['a filter of the wrong type', 'title.number=3', 400, 'title.number'],
      ['a malformed value', 'title.string.exists=maybe', 400, 'title.string.exists'],
      ['sort, a list-only parameter', 'sort=title.string', 400, 'sort'],
      ['q', 'q=dune', 400, 'q'],
      ['limit', 'limit=5', 400, 'limit'],
      ['a $-operator as a name', '%24where.string=1', 400, undefined],
      ['__proto__ as a property', '__proto__.string=x', 400, undefined],
      ['constructor as a property', 'constructor.string=x', 400, 'constructor.string'],
      ['a huge regex', `title.string.regex=/${'a'.repeat(600)}/`, 400, 'title.string.regex'],
      ['an invalid regex', 'title.string.regex=/(/', 400, 'title.string.regex'],
      ['a parameter twice', 'title.string=a&title.string=b', 400, 'title.string'],
      ['props not property names', 'props=a;b', 400, 'props'],
    ])('%s', async (_what, query, status, parameter) => {
      const res = await request(server).get(`/api/${t.db}/changes?${query}`).set(auth());
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
      if (parameter) expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ parameter })]));
    });

    it('an unknown database is 404, a forged token 401, a token of another database 403', async () => {
      expect((await request(server).get('/api/no_such_db/changes').set(auth())).status).toBe(404);
      expect((await request(server).get(`/api/${t.db}/changes`).set('Authorization', 'Bearer forged.token.here')).status).toBe(401);
      const other = await testTenant(api);
      try {
        expect((await request(server).get(`/api/${other.db}/changes`).set(auth())).status).toBe(403);
      } finally {
        await other.close();
      }
    });
  });

  describe('tickets for EventSource', () => {
    const ticket = async (db = t.db) => {
      const res = await request(server).post(`/api/${db}/changes/ticket`).set(auth());
      expect(res.status).toBe(201);
      expect(res.body.expiresIn).toBe(60);
      return res.body.ticket as string;
    };

    it('opens one stream as the person who asked, once', async () => {
      const first = await ticket();
      const s = track(await liveStream(baseUrl, t.db, `ticket=${first}`));
      const id = (await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'private, but mine' }])).body._id as string;
      expect((await s.next((e) => e.data.entity === id)).data.inView).toBe(true);
      const again = await SseReader.open(`${baseUrl}/api/${t.db}/changes?ticket=${first}`);
      expect(again.status).toBe(401);
    });

    it('is refused on another database, unknown, without a token, or beside a token', async () => {
      const other = await testTenant(api);
      try {
        const forOther = await ticket();
        expect((await request(server).get(`/api/${other.db}/changes?ticket=${forOther}`)).status).toBe(401);
      } finally {
        await other.close();
      }
      expect((await request(server).get(`/api/${t.db}/changes?ticket=${randomBytes(32).toString('base64url')}`)).status).toBe(401);
      expect((await request(server).post(`/api/${t.db}/changes/ticket`)).status).toBe(401);
      expect((await request(server).get(`/api/${t.db}/changes?ticket=${await ticket()}`).set(auth())).status).toBe(400);
    });

    it('never reaches a log line: the ticket is redacted from URLs', () => {
      expect(scrubUrl(`/api/${t.db}/changes?ticket=abc&title.string=x`)).toBe(`/api/${t.db}/changes?ticket=[Redacted]&title.string=x`);
    });
  });

  it('a person may hold CHANGE_STREAMS_PER_PERSON streams; a closed one frees its slot', async () => {
    const first = track(await liveStream(baseUrl, t.db, '', auth()));
    track(await liveStream(baseUrl, t.db, '', auth()));
    const third = await request(server).get(`/api/${t.db}/changes`).set(auth());
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBeDefined();
    // Another person is not counted against the first.
    const other = await t.newPerson('Other');
    track(await liveStream(baseUrl, t.db, '', { Authorization: other.auth }));
    first.close();
    await until(async () => (await metric('entia_change_streams_open')) === 2);
    track(await liveStream(baseUrl, t.db, '', auth()));
  });

  it('a process holds at most CHANGE_STREAMS_MAX streams: more is 503 with Retry-After', async () => {
    const small = testApi({ REDIS_PREFIX: api.deps.config.REDIS_PREFIX, CHANGE_STREAMS_MAX: '1' });
    const smallServer = await listening(small.app);
    try {
      const { url } = smallServer;
      const first = track(await liveStream(url, t.db, '', auth()));
      const other = await t.newPerson('Another');
      const refused = await request(smallServer.server).get(`/api/${t.db}/changes`).set('Authorization', other.auth);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBeDefined();
      first.close();
    } finally {
      await smallServer.close();
      await small.close();
    }
  });

  it('a client that does not read is dropped once its buffer is full, and what it held is let go', async () => {
    const before = await metric('entia_change_streams_ended_total', { reason: 'dropped' });
    // A raw socket that asks for a stream and then never reads.
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /api/${t.db}/changes?props=text HTTP/1.1\r\nHost: x\r\nAuthorization: ${t.owner.auth}\r\n\r\n`);
    socket.pause();
    await until(async () => (await metric('entia_change_streams_open')) === 1);
    // 20 MB of events straight into the log, each readable by the owner with 4 KB of values.
    const owner = { _id: randomBytes(12).toString('hex'), type: '_owner', reference: t.owner.id, created: { at: new Date().toISOString(), by: t.owner.id } };
    const text = Array.from({ length: 4 }, (_, i) => ({ _id: randomBytes(12).toString('hex'), type: 'text', string: 'x'.repeat(1000), created: owner.created, n: i }));
    let peak = 0;
    for (let i = 0; i < 5000 && (await metric('entia_change_streams_open')) > 0; i++) {
      const entity = randomBytes(12).toString('hex');
      const record: ChangeRecord = {
        key: `${entity}:1`,
        entity,
        type: book,
        kind: 'created',
        version: 1,
        at: new Date().toISOString(),
        by: t.owner.id,
        properties: ['text'],
        after: { properties: { _owner: [owner], text }, partial: [] },
      };
      await api.deps.changes.publish(t.db, record);
      if (i % 50 === 0) peak = Math.max(peak, await metric('entia_change_streams_unsent_bytes'));
    }
    await until(async () => (await metric('entia_change_streams_open')) === 0);
    expect(await metric('entia_change_streams_ended_total', { reason: 'dropped' })).toBe(before + 1);
    // Never much more than the bound (65 536 bytes) plus one event was held for it.
    expect(peak).toBeLessThan(65_536 + 10_000);
    socket.destroy();
  });

  it('shutting down ends every stream with `closing`, so that clients reconnect elsewhere', async () => {
    const a = track(await liveStream(baseUrl, t.db, '', auth()));
    const b = track(await liveStream(baseUrl, t.db, ''));
    lifecycle.shutDown();
    for (const s of [a, b]) {
      expect((await s.next((e) => e.event === 'closing')).data.reason).toMatch(/shutting down/);
      await s.closedByServer();
    }
    expect((await request(server).get(`/api/${t.db}/changes`).set(auth())).status).toBe(503);
  });
});
