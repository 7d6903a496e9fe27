import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import request from 'supertest';
import { eventually } from './eventually';
import { WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { sharedWith, testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

// Webhooks (issue 18) against the real stack: the in-process API writes, a worker process
// dispatches and delivers to receivers on this machine's loopback, which the worker's
// WEBHOOK_ALLOWED_HOSTS names (127.0.0.1 only: 127.0.0.2 stays refused).

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  event: { id: string; entity: string; kind: string; inView: boolean; type: string; db: string; properties: string[]; values?: unknown };
}

type Answer = (req: IncomingMessage, res: ServerResponse, received: Received, nth: number) => void;

/** An HTTP server on `host` that records every request and answers as the test says, per path. */
class Receiver {
  readonly received: Received[] = [];
  readonly answers = new Map<string, Answer>();
  private readonly sockets = new Set<Socket>();
  private server!: Server;
  port = 0;

  constructor(private readonly host: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const received: Received = { path: req.url!, headers: req.headers, body, event: JSON.parse(body) as Received['event'] };
        this.received.push(received);
        const nth = this.received.filter((r) => r.path === received.path && r.event.id === received.event.id).length;
        (this.answers.get(req.url!) ?? ((_q, s) => s.writeHead(200).end('ok')))(req, res, received, nth);
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server.listen(0, this.host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://${this.host}:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Drops every open connection (requests held unanswered). */
  hangUp(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    this.hangUp();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const SECRET = 'whsec-0123456789abcdef';

describe('webhooks', () => {
  let api: TestApi;
  let t: TestTenant;
  let worker: Spawned | undefined;
  let receiver: Receiver;
  let book: string;

  async function startWorkerProcess(): Promise<Spawned> {
    const port = await freePort();
    const proc = spawnService(
      WORKER_MAIN,
      stackEnv({
        WORKER_PORT: String(port),
        ...sharedWith(api),
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        WEBHOOK_TIMEOUT_MS: '1000',
        WEBHOOK_BACKOFF_MS: '200',
        WEBHOOK_RETRY_SECONDS: '20',
        // A killed worker's jobs are taken up after 2 s, its undispatched changes after 5 s.
        WORKER_LOCK_MS: '2000',
        WORKER_CONCURRENCY: '8',
      }),
    );
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, (status) => status === 200, 20_000);
    return proc;
  }

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    receiver = await new Receiver('127.0.0.1').start();
    book = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'pages', type: 'number' },
    ]);
    worker = await startWorkerProcess();
  }, 60_000);

  afterAll(async () => {
    await worker?.stop();
    await receiver.stop();
    await t.close();
    await api.close();
  });

  const webhookValues = (values: { name?: string; url?: string; filter?: string; secret?: string }) => [
    { type: '_type', reference: t.types.webhook },
    ...(values.name ? [{ type: 'name', string: values.name }] : []),
    ...(values.url ? [{ type: 'url', string: values.url }] : []),
    ...(values.filter ? [{ type: 'filter', string: values.filter }] : []),
    ...(values.secret ? [{ type: 'secret', string: values.secret }] : []),
  ];

  async function createWebhook(path: string, filter?: string, url = receiver.url(path)): Promise<string> {
    const res = await t.create(webhookValues({ name: path, url, secret: SECRET, ...(filter ? { filter } : {}) }));
    expect(res.status).toBe(201);
    return res.body._id as string;
  }

  async function createBook(title: string, pages = 10): Promise<string> {
    const res = await t.create([
      { type: '_type', reference: book },
      { type: 'title', string: title },
      { type: 'pages', number: pages },
    ]);
    expect(res.status).toBe(201);
    return res.body._id as string;
  }

  const deliveries = (webhook: string, by?: Person) => {
    const req = request(api.app).get(`/api/${t.db}/entity/${webhook}/deliveries`);
    return by ? req.set('Authorization', by.auth) : req;
  };
  const deliveryOf = async (webhook: string, entity: string) => ((await deliveries(webhook, t.owner)).body.deliveries as Record<string, unknown>[]).find((d) => d.entity === entity);

  it('delivers a change as JSON, with its event id and a valid signature', async () => {
    const hook = await createWebhook('/all');
    const id = await createBook('signed');
    const [got] = await eventually(async () => receiver.at('/all').filter((r) => r.event.entity === id), (found) => found.length > 0);
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['entia-event-id']).toBe(got!.event.id);
    const timestamp = Number(got!.headers['entia-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    const expected = createHmac('sha256', SECRET).update(`${timestamp}.${got!.body}`).digest('hex');
    expect(got!.headers['entia-signature']).toBe(`t=${timestamp},v1=${expected}`);
    expect(got!.event).toEqual(
      expect.objectContaining({ db: t.db, entity: id, type: book, kind: 'created', inView: true, properties: expect.arrayContaining(['pages', 'title']) }),
    );
    // The same event as the change feed's, without values: the receiver reads them with the API.
    expect(got!.event.values).toBeUndefined();
    expect(got!.event.id).toMatch(/^\d+-\d+\.[0-9a-f]{16}$/);

    const logged = await eventually(() => deliveryOf(hook, id), (d) => d?.status === 'delivered');
    expect(logged).toEqual(expect.objectContaining({ event: got!.event.id, entity: id, kind: 'created', status: 'delivered', attempts: 1, lastStatus: 200 }));
    expect(logged).not.toHaveProperty('lastError');

    // Inactive: nothing more is sent to it.
    expect((await request(api.app).post(`/api/${t.db}/entity/${hook}`).set('Authorization', t.owner.auth).send([{ type: 'active', boolean: false }])).status).toBe(200);
    const witness = await createWebhook('/witness', 'title.string=after-off');
    const after = await createBook('after-off');
    await eventually(async () => receiver.at('/witness').filter((r) => r.event.entity === after), (found) => found.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at('/all').filter((r) => r.event.entity === after)).toEqual([]);
    expect(witness).toBeDefined();
  }, 30_000);

  it('sends what its filter selects, before or after the change: entering, leaving, never the rest', async () => {
    await createWebhook('/filtered', `_type.reference=${book}&pages.number.gte=100`);
    const small = await createBook('small', 50);
    const big = await createBook('big', 150);
    expect((await request(api.app).post(`/api/${t.db}/entity/${big}`).set('Authorization', t.owner.auth).send([{ type: 'pages', number: 20 }])).status).toBe(200);
    const got = await eventually(async () => receiver.at('/filtered'), (found) => found.some((r) => r.event.entity === big && r.event.kind === 'updated'));
    expect(got.find((r) => r.event.entity === big && r.event.kind === 'created')!.event.inView).toBe(true);
    // It left the filter: told so, with no property names.
    expect(got.find((r) => r.event.entity === big && r.event.kind === 'updated')!.event).toEqual(expect.objectContaining({ inView: false, properties: [] }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at('/filtered').filter((r) => r.event.entity === small)).toEqual([]);
  }, 30_000);

  it('retries after 500s with backoff until a 2xx, and records the attempts', async () => {
    receiver.answers.set('/flaky', (_req, res, _r, nth) => (nth <= 2 ? res.writeHead(500).end('down') : res.writeHead(204).end()));
    const hook = await createWebhook('/flaky', 'title.string=flaky');
    const id = await createBook('flaky');
    const logged = await eventually(() => deliveryOf(hook, id), (d) => d?.status === 'delivered', 20_000);
    expect(logged).toEqual(expect.objectContaining({ status: 'delivered', attempts: 3, lastStatus: 204 }));
    const got = receiver.at('/flaky').filter((r) => r.event.entity === id);
    expect(got).toHaveLength(3);
    // The same event each time, signed anew.
    expect(new Set(got.map((r) => r.headers['entia-event-id'])).size).toBe(1);
    for (const r of got) {
      const timestamp = r.headers['entia-timestamp'];
      expect(r.headers['entia-signature']).toBe(`t=${timestamp},v1=${createHmac('sha256', SECRET).update(`${timestamp}.${r.body}`).digest('hex')}`);
    }
  }, 30_000);

  it('retries a receiver that does not answer in time', async () => {
    // The first attempt is held unanswered: the worker gives up on it after WEBHOOK_TIMEOUT_MS.
    receiver.answers.set('/slow', (_req, res, _r, nth) => (nth === 1 ? undefined : res.writeHead(200).end()));
    const hook = await createWebhook('/slow', 'title.string=slow');
    const id = await createBook('slow');
    const logged = await eventually(() => deliveryOf(hook, id), (d) => d?.status === 'delivered', 20_000);
    expect(logged).toEqual(expect.objectContaining({ status: 'delivered', attempts: 2, lastStatus: 200 }));
    expect(receiver.at('/slow').filter((r) => r.event.entity === id)).toHaveLength(2);
  }, 30_000);

  it('refuses an address the allowlist does not name (127.0.0.2, loopback): recorded failed, never called, not retried', async () => {
    const other = await new Receiver('127.0.0.2').start();
    try {
      const hook = await createWebhook('/private', 'title.string=private', other.url('/private'));
      const id = await createBook('private');
      const logged = await eventually(() => deliveryOf(hook, id), (d) => d?.status === 'failed', 20_000);
      expect(logged).toEqual(expect.objectContaining({ status: 'failed', attempts: 1 }));
      expect(logged!.lastError).toMatch(/127\.0\.0\.2 is a loopback address, refused/);
      expect(logged).not.toHaveProperty('lastStatus');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await deliveryOf(hook, id)).toEqual(expect.objectContaining({ status: 'failed', attempts: 1 }));
      expect(other.received).toEqual([]);
    } finally {
      await other.stop();
    }
  }, 30_000);

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    receiver.answers.set('/moved', (_req, res) => res.writeHead(302, { Location: receiver.url('/moved-here') }).end());
    const hook = await createWebhook('/moved', 'title.string=moved');
    const id = await createBook('moved');
    const logged = await eventually(() => deliveryOf(hook, id), (d) => d !== undefined, 20_000);
    expect(logged).toEqual(expect.objectContaining({ status: 'pending', lastStatus: 302, lastError: expect.stringMatching(/redirects are not followed/) }));
    expect(receiver.at('/moved-here')).toEqual([]);
    // Switched off, its retries stop (the webhook is read afresh before each attempt), and the log says so.
    await request(api.app).post(`/api/${t.db}/entity/${hook}`).set('Authorization', t.owner.auth).send([{ type: 'active', boolean: false }]);
    const abandoned = await eventually(() => deliveryOf(hook, id), (d) => d?.status === 'failed', 20_000);
    expect(abandoned).toEqual(expect.objectContaining({ status: 'failed', lastStatus: 302, lastError: 'not attempted again: the webhook is inactive' }));
  }, 30_000);

  it("shows the delivery log to the webhook's owners only, and never its secret", async () => {
    const hook = await createWebhook('/log', 'title.string=log');
    const id = await createBook('log');
    await eventually(() => deliveryOf(hook, id), (d) => d?.status === 'delivered');
    const viewer = await t.newPerson('Vera Viewer');
    const stranger = await t.newPerson('Sam Stranger');
    expect((await request(api.app).post(`/api/${t.db}/entity/${hook}`).set('Authorization', t.owner.auth).send([{ type: '_viewer', reference: viewer.id }])).status).toBe(200);

    const owner = await deliveries(hook, t.owner);
    expect(owner.status).toBe(200);
    expect(owner.headers['cache-control']).toBe('no-store');
    expect(owner.body).toEqual({ deliveries: [expect.objectContaining({ entity: id, status: 'delivered' })], count: 1 });
    expect((await deliveries(hook, viewer)).status).toBe(403);
    expect((await deliveries(hook, stranger)).status).toBe(404);
    expect((await deliveries(hook)).status).toBe(404);
    // Not a webhook, or no entity at all.
    expect((await deliveries(id, t.owner)).status).toBe(404);
    expect((await deliveries('0123456789abcdef01234567', t.owner)).status).toBe(404);
    expect((await deliveries(hook, t.owner).query({ limit: 'many' })).status).toBe(400);

    // Across every webhook of this file: no log entry carries the secret.
    const all = await request(api.app).get(`/api/${t.db}/entity`).query({ '_type.reference': t.types.webhook!, limit: 100 }).set('Authorization', t.owner.auth);
    for (const entity of all.body.entities as { _id: string }[]) expect(JSON.stringify((await deliveries(entity._id, t.owner)).body)).not.toContain(SECRET);
  }, 30_000);

  it('lets only owners of the database create or change a webhook (403), and refuses bad values (400)', async () => {
    const colleague = await t.newPerson('Colin Colleague');
    const refused = await t.create(webhookValues({ url: receiver.url('/x'), secret: SECRET }), colleague);
    expect(refused.status).toBe(403);

    const bad = await t.create(webhookValues({ url: 'ftp://example.com/hook', filter: 'pages.number.gte=many', secret: 'short' }));
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      { pointer: '/1/string', message: expect.stringMatching(/^"url" must be an absolute http or https URL/) },
      { pointer: '/3/string', message: expect.stringMatching(/^"secret" must be at least 16 characters/) },
      { pointer: '/2/string', message: expect.stringMatching(/^"filter" is not a filter .*pages\.number\.gte/) },
    ]);
    expect((await t.create(webhookValues({ url: 'https://user:pw@example.com/', secret: SECRET }))).status).toBe(400);
    const missing = await t.create(webhookValues({ url: receiver.url('/x') }));
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body.errors)).toMatch(/"secret\\" is mandatory/);

    // A webhook's owner who does not own the database cannot change it either.
    const hook = await createWebhook('/owned', 'title.string=owned');
    await request(api.app).post(`/api/${t.db}/entity/${hook}`).set('Authorization', t.owner.auth).send([{ type: '_owner', reference: colleague.id }]);
    const change = await request(api.app).post(`/api/${t.db}/entity/${hook}`).set('Authorization', colleague.auth).send([{ type: 'url', string: 'https://example.com/elsewhere' }]);
    expect(change.status).toBe(403);
    // And its url cannot be deleted: it is mandatory.
    const url = (await request(api.app).get(`/api/${t.db}/entity/${hook}`).set('Authorization', t.owner.auth)).body.entity.url[0]._id as string;
    expect((await request(api.app).delete(`/api/${t.db}/property/${url}`).set('Authorization', t.owner.auth)).status).toBe(400);
  }, 30_000);

  it('delivers every change at least once across a worker killed mid-delivery', async () => {
    // Held unanswered until the worker is killed; answered from then on.
    let holding = true;
    receiver.answers.set('/kill', (_req, res) => (holding ? undefined : res.writeHead(200).end()));
    await createWebhook('/kill', 'title.string=kill');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await createBook('kill', i));
    await eventually(async () => receiver.at('/kill'), (found) => found.length > 0);
    worker!.child.kill('SIGKILL');
    expect(await worker!.exited).toBe('SIGKILL');
    // Whatever came until now was never answered.
    const held = receiver.at('/kill').length;
    holding = false;
    receiver.hangUp();

    worker = await startWorkerProcess();
    const answered = () => new Set(receiver.at('/kill').slice(held).map((r) => r.event.entity));
    const got = await eventually(async () => answered(), (entities) => ids.every((id) => entities.has(id)), 40_000);
    expect([...got].sort()).toEqual([...ids].sort());
  }, 60_000);
});
