import { Agent, request, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { API_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// The API runs as its own process on the test stack and is sent SIGTERM while requests are in
// flight on kept-alive connections: every one of them must be answered and stored, nothing sent
// after the signal may run, and the process must exit 0 within SHUTDOWN_TIMEOUT_MS.

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Post {
  req: ClientRequest;
  /** Resolves when the server answered `100 Continue`: the request has reached the app. */
  continued: Promise<void>;
  answered: Promise<Answer>;
}

/**
 * A POST of `body` through `agent`. With `holdBody`, headers go first with `Expect: 100-continue`
 * (as curl sends larger bodies) and the body only when the caller calls `req.end(body)`: the
 * server has started the request once it sends `100 Continue`, which it does as it hands the
 * request to the app, so the test knows the request is in flight without any timing.
 */
function post(agent: Agent, port: number, path: string, token: string, body: string, holdBody: boolean): Post {
  const req = request({
    agent,
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      ...(holdBody ? { Expect: '100-continue' } : {}),
    },
  });
  const continued = new Promise<void>((resolve) => req.once('continue', resolve));
  const answered = new Promise<Answer>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      res.once('error', reject);
    });
  });
  if (!holdBody) req.end(body);
  return { req, continued, answered };
}

function get(agent: Agent, port: number, path: string, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ agent, host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode!));
    })
      .once('error', reject)
      .end();
  });
}

/** Resolves once a new connection to `port` is refused: the process has closed its listener. */
async function listenerClosed(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`port ${port} still accepts connections after ${timeoutMs} ms`);
}

const noteBody = (type: string, title: string) =>
  JSON.stringify([
    { type: '_type', reference: type },
    { type: 'title', string: title },
  ]);

describe('the API process on SIGTERM', () => {
  const GRACE_MS = 10_000;
  const IN_FLIGHT = 20;
  let api: TestApi;
  let tenant: TestTenant;
  let note: string;

  beforeAll(async () => {
    api = testApi();
    tenant = await testTenant(api);
    note = await tenant.defineType('note', [{ name: 'title', type: 'string' }]);
  });

  afterAll(async () => {
    await tenant?.close();
    await api?.close();
  });

  async function startApi(graceMs: number): Promise<{ proc: Spawned; port: number }> {
    const port = await freePort();
    const proc = spawnService(
      API_MAIN,
      stackEnv({ PORT: String(port), REDIS_PREFIX: `sd${randomBytes(4).toString('hex')}`, MONGODB_CONTROL_DB: api.deps.config.MONGODB_CONTROL_DB, SHUTDOWN_TIMEOUT_MS: String(graceMs) }),
    );
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 20_000);
    return { proc, port };
  }

  it(`answers all ${IN_FLIGHT} requests in flight on kept-alive connections, starts none after the signal, exits 0 in time`, async () => {
    const { proc, port } = await startApi(GRACE_MS);
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    const path = `/api/${tenant.db}/entity`;
    try {
      // Open IN_FLIGHT connections and leave them kept alive (this also caches the key check).
      const warm = await Promise.all(Array.from({ length: IN_FLIGHT }, () => get(agent, port, `${path}?limit=0`, tenant.owner.token)));
      expect(warm).toEqual(Array(IN_FLIGHT).fill(200));

      const before = Array.from({ length: IN_FLIGHT }, (_, i) => post(agent, port, path, tenant.owner.token, noteBody(note, `before ${i}`), true));
      await Promise.all(before.map((p) => p.continued));
      expect(before.every((p) => p.req.reusedSocket)).toBe(true);

      const signalledAt = Date.now();
      proc.child.kill('SIGTERM');
      await listenerClosed(port, 5_000);
      // Sent after the signal through the same agent: they wait for one of its kept-alive sockets.
      const after = Array.from({ length: IN_FLIGHT }, (_, i) => post(agent, port, path, tenant.owner.token, noteBody(note, `after ${i}`), false));
      for (const [i, p] of before.entries()) p.req.end(noteBody(note, `before ${i}`));

      const answers = await Promise.all(before.map((p) => p.answered));
      expect(answers.map((a) => a.status)).toEqual(Array(IN_FLIGHT).fill(201));
      expect(answers.map((a) => a.headers.connection)).toEqual(Array(IN_FLIGHT).fill('close'));
      const refused = await Promise.all(after.map((p) => p.answered.then((a) => a.status, (error: Error) => error.message)));
      expect(refused.filter((outcome) => typeof outcome === 'number' && outcome < 300)).toEqual([]);

      expect(await proc.exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(GRACE_MS);

      const stored = await api.deps.store
        .database(tenant.db)
        .collection('entity')
        .find({ '_type.reference': new ObjectId(note) }, { projection: { 'title.string': 1 } })
        .toArray();
      const titles = stored.map((document) => (document.title as Array<{ string: string }>)[0]!.string).sort();
      expect(titles).toEqual(before.map((_, i) => `before ${i}`).sort());
      expect(stored.map((document) => String(document._id)).sort()).toEqual(answers.map((a) => (JSON.parse(a.body) as { _id: string })._id).sort());
    } finally {
      agent.destroy();
      await proc.stop();
    }
  }, 60_000);

  it('exits within the grace period when a request never finishes', async () => {
    const grace = 2_000;
    const { proc, port } = await startApi(grace);
    const agent = new Agent({ keepAlive: true });
    try {
      const stuck = post(agent, port, `/api/${tenant.db}/entity`, tenant.owner.token, noteBody(note, 'never sent'), true);
      stuck.answered.catch(() => undefined);
      await stuck.continued;
      const signalledAt = Date.now();
      proc.child.kill('SIGTERM');
      // 1: the drain was cut short, which the orchestrator's logs should show.
      expect(await proc.exited).toBe(1);
      expect(Date.now() - signalledAt).toBeLessThan(grace + 3_000);
    } finally {
      agent.destroy();
      await proc.stop();
    }
  }, 60_000);
});
