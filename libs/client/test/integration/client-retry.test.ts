import { EntiaClient } from '@entia/client';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { testApi, type TestApi } from '../../../../services/api/test/support';
import { testTenant, type TestTenant } from '../../../../services/api/test/tenant';

interface Forwarded {
  method: string;
  path: string;
  key: string | undefined;
  status: number;
  body: string;
  dropped: boolean;
}

/**
 * A real HTTP proxy in front of the API that forwards every request and, when told to, drops the
 * API's answer: the request was executed, but the client's connection is cut before any response.
 */
class LossyProxy {
  forwarded: Forwarded[] = [];
  /** How many upcoming POST answers to drop. */
  dropPosts = 0;
  baseUrl = '';
  private server: Server | undefined;

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.forward(req).then(({ status, headers, body }) => {
        if (req.method === 'POST' && this.dropPosts > 0) {
          this.dropPosts--;
          this.forwarded.at(-1)!.dropped = true;
          req.socket.destroy();
          return;
        }
        res.writeHead(status, headers);
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    this.server!.closeAllConnections();
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }

  posts(): Forwarded[] {
    return this.forwarded.filter((f) => f.method === 'POST');
  }

  private async forward(req: IncomingMessage): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const pass = ['authorization', 'content-type', 'accept', 'idempotency-key'].flatMap((name) => {
      const value = req.headers[name];
      return typeof value === 'string' ? [[name, value] as [string, string]] : [];
    });
    const response = await fetch(`${this.target}${req.url}`, {
      method: req.method,
      headers: Object.fromEntries(pass),
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = await response.text();
    const key = req.headers['idempotency-key'];
    this.forwarded.push({ method: req.method!, path: req.url!, key: typeof key === 'string' ? key : undefined, status: response.status, body, dropped: false });
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'location', 'retry-after', 'idempotent-replayed']) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    return { status: response.status, headers, body };
  }
}

// The client's retry rule against the real API: a POST is repeated only under its Idempotency-Key.
describe('client retries of a POST whose answer was lost', () => {
  let api: TestApi;
  let tenant: TestTenant;
  let proxy: LossyProxy;
  let client: EntiaClient;
  let book: string;

  beforeAll(async () => {
    api = testApi();
    tenant = await testTenant(api);
    book = await tenant.defineType('book', [{ name: 'title', type: 'string' }]);
    proxy = new LossyProxy(tenant.baseUrl);
    await proxy.start();
    client = new EntiaClient({ baseUrl: proxy.baseUrl, token: tenant.owner.token, retry: { attempts: 4, baseDelayMs: 10, maxDelayMs: 50 } });
  });
  afterAll(async () => {
    await proxy.stop();
    await tenant.close();
    await api.close();
  });
  beforeEach(() => {
    proxy.forwarded = [];
    proxy.dropPosts = 0;
  });

  const values = (title: string) => [
    { type: '_type', reference: book },
    { type: 'title', string: title },
  ];
  const countTitled = async (title: string) => {
    const res = await request(api.app)
      .get(`/api/${tenant.db}/entity`)
      .query({ '_type.reference': book, 'title.string': title, limit: 0 })
      .set('Authorization', tenant.owner.auth);
    return res.body.count as number;
  };

  it('is retried with the same key and creates exactly one entity', async () => {
    proxy.dropPosts = 1;
    const created = await client.db(tenant.db).createEntity(values('Lost once'));

    const posts = proxy.posts();
    expect(posts).toHaveLength(2);
    expect(posts[0]).toMatchObject({ dropped: true, status: 201 });
    expect(posts[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.key).toBe(posts[0]!.key);
    expect(posts[1]!.status).toBe(201);
    // The retry received the answer of the first, executed, attempt.
    expect(created._id).toBe(JSON.parse(posts[0]!.body)._id);
    expect(await countTitled('Lost once')).toBe(1);
  });

  it('each call has a key of its own', async () => {
    await client.db(tenant.db).createEntity(values('Call one'));
    await client.db(tenant.db).createEntity(values('Call two'));
    const [one, two] = proxy.posts();
    expect(one!.key).not.toBe(two!.key);
    expect(await countTitled('Call one')).toBe(1);
    expect(await countTitled('Call two')).toBe(1);
  });

  it('a caller-supplied key makes two calls one', async () => {
    const db = client.db(tenant.db);
    const first = await db.createEntity(values('Mine'), { idempotencyKey: 'order-4711' });
    const second = await db.createEntity(values('Mine'), { idempotencyKey: 'order-4711' });
    expect(second._id).toBe(first._id);
    expect(proxy.posts().map((p) => p.key)).toEqual(['order-4711', 'order-4711']);
    expect(await countTitled('Mine')).toBe(1);
  });

  it('without a key, a POST is never retried: the lost answer is the caller\'s error', async () => {
    proxy.dropPosts = 1;
    await expect(client.db(tenant.db).createEntity(values('No key'), { idempotencyKey: false })).rejects.toThrow(/fetch failed/);
    const posts = proxy.posts();
    expect(posts).toHaveLength(1);
    expect(posts[0]!.key).toBeUndefined();
    // It was stored, though: exactly why a blind retry would have made two.
    expect(await countTitled('No key')).toBe(1);
  });
});
