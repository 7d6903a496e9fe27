import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually';
import { OTLP_KIND, otlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
import { API_MAIN, WORKER_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { sharedWith, testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * Traces (issue 22), with the real API and worker processes: off by default (nothing of
 * OpenTelemetry loaded), and on, one request's spans across API → Redis → worker → MongoDB in one
 * trace, received by a stand-in collector, with no secret in them.
 */

// Preloaded into each service (NODE_OPTIONS): as the process exits, one stderr line with the
// OpenTelemetry modules it loaded and what it registered with OpenTelemetry's global API. The API
// package itself is left out: prom-client requires it (for exemplars) whether tracing is on or not,
// and by itself it is interfaces and no-ops, patching and registering nothing.
const HOOK = `process.on('exit', () => {
  const modules = Object.keys(require.cache).filter((file) => /[\\/]node_modules[\\/](@opentelemetry[\\/](?!api[\\/])|bullmq-otel[\\/])/.test(file));
  const registered = Object.keys(globalThis[Symbol.for('opentelemetry.js.api.1')] ?? {}).filter((key) => key !== 'version');
  process.stderr.write('otel ' + JSON.stringify({ modules, registered }) + '\\n');
});
`;

function openTelemetryOf(proc: Spawned): { modules: string[]; registered: string[] } {
  const line = proc.stderr().split('\n').find((l) => l.startsWith('otel '));
  if (!line) throw new Error(`no module list on stderr: ${proc.stderr()}`);
  return JSON.parse(line.slice('otel '.length)) as { modules: string[]; registered: string[] };
}

/** The values of a recorded query shape (keys aside); a count of keys left out is no value. */
function leavesOf(shape: unknown): unknown[] {
  if (Array.isArray(shape)) return shape.flatMap(leavesOf);
  if (shape !== null && typeof shape === 'object') return Object.entries(shape).flatMap(([key, value]) => (key === '…' ? [] : leavesOf(value)));
  return [shape];
}

describe('traces', () => {
  let api: TestApi;
  let t: TestTenant;
  let hookDir: string;
  let invoice: string;
  let rowType: string;
  const running: Spawned[] = [];

  beforeAll(async () => {
    hookDir = mkdtempSync(join(tmpdir(), 'entia-trace-'));
    writeFileSync(join(hookDir, 'hook.js'), HOOK);
    api = testApi();
    t = await testTenant(api);
    // A parent's total sums its rows: writing a row has the worker settle the parent (a job).
    const invoiceType = await t.defineType('invoice', [{ name: 'total', type: 'number', formula: '_child.row.amount SUM' }]);
    rowType = await t.defineType('row', [
      { name: 'amount', type: 'number' },
      { name: 'note', type: 'string' },
    ]);
    const res = await t.create([{ type: '_type', reference: invoiceType }]);
    expect(res.status).toBe(201);
    invoice = res.body._id as string;
  });
  afterAll(async () => {
    await Promise.all(running.map((proc) => proc.stop()));
    await t?.close();
    if (t) await api.deps.store.database(t.db).dropDatabase();
    await api?.deps.store.control.dropDatabase();
    await api?.close();
    rmSync(hookDir, { recursive: true, force: true });
  });

  /** The API and a worker as processes, sharing the tenant; returns the API's base URL. */
  async function startServices(env: Record<string, string>): Promise<{ apiProc: Spawned; workerProc: Spawned; url: string }> {
    const [apiPort, workerPort] = [await freePort(), await freePort()];
    // Patient with a shared, busy FerretDB: readiness is not what is tested here.
    const patience = { DEPENDENCY_TIMEOUT_MS: '10000', READINESS_TIMEOUT_MS: '5000' };
    const base = stackEnv({ ...sharedWith(api), ...patience, NODE_OPTIONS: `--require ${join(hookDir, 'hook.js')}`, ...env });
    const apiProc = spawnService(API_MAIN, { ...base, PORT: String(apiPort) });
    const workerProc = spawnService(WORKER_MAIN, { ...base, WORKER_PORT: String(workerPort) });
    running.push(apiProc, workerProc);
    try {
      await waitForStatus(`http://127.0.0.1:${apiPort}/readyz`, (s) => s === 200, 60_000);
      await waitForStatus(`http://127.0.0.1:${workerPort}/readyz`, (s) => s === 200, 60_000);
    } catch (error) {
      const said = await fetch(`http://127.0.0.1:${apiPort}/readyz`).then((res) => res.text(), String);
      throw new Error(`${(error as Error).message}\napi: ${said} ${apiProc.stderr()}\nworker: ${workerProc.stderr()}`);
    }
    return { apiProc, workerProc, url: `http://127.0.0.1:${apiPort}` };
  }

  /** Signs in with the owner's key, adds a row to the invoice and waits for the worker to total it. */
  async function writeRowAndSettle(url: string, amount: number, extra: { requestId?: string; note?: string } = {}): Promise<void> {
    const signIn = await fetch(`${url}/api/auth`, { headers: { Authorization: `Bearer ${t.owner.apiKey}` } });
    expect(signIn.status).toBe(200);
    const { token } = (await signIn.json()) as { token: string };
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...(extra.requestId ? { 'X-Request-Id': extra.requestId } : {}) };
    const values = [{ type: '_type', reference: rowType }, { type: '_parent', reference: invoice }, { type: 'amount', number: amount }, ...(extra.note ? [{ type: 'note', string: extra.note }] : [])];
    const created = await fetch(`${url}/api/${t.db}/entity`, { method: 'POST', headers, body: JSON.stringify(values) });
    expect(created.status).toBe(201);
    const total = async () => {
      const res = await fetch(`${url}/api/${t.db}/entity/${invoice}`, { headers });
      return ((await res.json()) as { entity?: { total?: { number: number }[] } }).entity?.total?.[0]?.number;
    };
    await eventually(total, (sum) => sum !== undefined && sum >= amount, 30_000);
  }

  it('refuses a bad sampling setting at start, with one line naming it', async () => {
    for (const main of [API_MAIN, WORKER_MAIN]) {
      const proc = spawnService(main, stackEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER_ARG: '2' }));
      expect(await proc.exited).toBe(78);
      expect(proc.stderr()).toMatch(/^entia-(api|worker): invalid configuration: OTEL_TRACES_SAMPLER_ARG must be <= 1 \(got "2"\)\n$/);
    }
  });

  it('is off by default: the services work and load nothing of OpenTelemetry', async () => {
    const { apiProc, workerProc, url } = await startServices({});
    await writeRowAndSettle(url, 1);
    expect(await apiProc.stop()).toBe(0);
    expect(await workerProc.stop()).toBe(0);
    expect(openTelemetryOf(apiProc)).toEqual({ modules: [], registered: [] });
    expect(openTelemetryOf(workerProc)).toEqual({ modules: [], registered: [] });
  }, 180_000);

  it('does not let a collector that never answers fail a request or hold up a clean shutdown', async () => {
    const hanging = await otlpReceiver({ answer: false });
    try {
      const port = await freePort();
      // A grace period shorter than the exporter's own 10 s timeout.
      const proc = spawnService(API_MAIN, stackEnv({ ...sharedWith(api), PORT: String(port), SHUTDOWN_TIMEOUT_MS: '6000', OTEL_EXPORTER_OTLP_ENDPOINT: hanging.url, DEPENDENCY_TIMEOUT_MS: '10000', READINESS_TIMEOUT_MS: '5000' }));
      running.push(proc);
      await waitForStatus(`http://127.0.0.1:${port}/readyz`, (s) => s === 200, 60_000);
      const signIn = await fetch(`http://127.0.0.1:${port}/api/auth`, { headers: { Authorization: `Bearer ${t.owner.apiKey}` } });
      expect(signIn.status).toBe(200);
      expect(await proc.stop()).toBe(0);
    } finally {
      await hanging.close();
    }
  }, 120_000);

  describe('on, with a collector', () => {
    let receiver: OtlpReceiver;
    let spans: ReceivedSpan[];
    let apiProc: Spawned;
    let workerProc: Spawned;
    const requestId = `trace-test-${randomBytes(4).toString('hex')}`;
    const note = `private-note-${randomBytes(6).toString('hex')}`;
    const ticket = `ticket-${randomBytes(8).toString('hex')}`;

    beforeAll(async () => {
      receiver = await otlpReceiver();
      const started = await startServices({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      ({ apiProc, workerProc } = started);
      await writeRowAndSettle(started.url, 2, { requestId, note });
      // A credential in a query string (as an EventSource ticket travels): whatever the answer, its span must not carry it.
      await fetch(`${started.url}/api/${t.db}/entity/${invoice}?ticket=${ticket}`, { headers: { Authorization: `Bearer ${t.owner.token}` } });
      // Stopping flushes what the exporters still buffer.
      expect(await apiProc.stop()).toBe(0);
      expect(await workerProc.stop()).toBe(0);
      spans = receiver.spans();
    }, 180_000);
    afterAll(async () => {
      await receiver?.close();
    });

    it('loads OpenTelemetry in both services', () => {
      for (const proc of [apiProc, workerProc]) {
        const { modules, registered } = openTelemetryOf(proc);
        expect(modules).toEqual(expect.arrayContaining([expect.stringMatching(/@opentelemetry[\\/]sdk-trace-node[\\/]/), expect.stringMatching(/bullmq-otel/)]));
        expect(registered).toEqual(expect.arrayContaining(['trace', 'context', 'propagation']));
      }
    });

    it('one write is one trace: its request, Redis, MongoDB, and the job it queued in the worker', () => {
      const server = spans.find((s) => s.kind === OTLP_KIND.SERVER && s.attributes['entia.request_id'] === requestId);
      if (!server) throw new Error(`no request span with the request id among ${spans.length} spans`);
      expect(server).toMatchObject({ service: 'entia-api', name: expect.stringMatching(/^POST/) });
      const trace = spans.filter((s) => s.traceId === server.traceId);
      const byId = new Map(trace.map((s) => [s.spanId, s]));
      const under = (span: ReceivedSpan, ancestor: ReceivedSpan): boolean => {
        for (let at: ReceivedSpan | undefined = span; at; at = byId.get(at.parentSpanId)) if (at.spanId === ancestor.spanId) return true;
        return false;
      };
      const of = (service: string, predicate: (s: ReceivedSpan) => boolean) => trace.filter((s) => s.service === service && predicate(s));
      const first = (found: ReceivedSpan[], what: string): ReceivedSpan => {
        if (!found[0]) throw new Error(`no ${what} in the trace: ${trace.map((s) => `${s.service} ${s.kind} ${s.name}`).join(', ')}`);
        return found[0];
      };

      // The API: its Redis commands (write lease, enqueue) and its MongoDB commands, under the request.
      const redis = of('entia-api', (s) => s.attributes['db.system.name'] === 'redis');
      const mongo = of('entia-api', (s) => s.attributes['db.system.name'] === 'mongodb');
      expect(redis.length).toBeGreaterThan(0);
      expect(mongo.length).toBeGreaterThan(0);
      for (const span of [...redis, ...mongo]) expect(under(span, server)).toBe(true);
      expect(mongo.map((s) => s.attributes['db.collection.name'])).toContain('entity');

      // The job: BullMQ's producer span in the API, its processing in the worker as its child.
      const producer = first(of('entia-api', (s) => s.kind === OTLP_KIND.PRODUCER), 'producer span');
      expect(under(producer, server)).toBe(true);
      const consumer = first(of('entia-worker', (s) => s.kind === OTLP_KIND.CONSUMER), 'job span of the worker');
      expect(consumer).toMatchObject({ parentSpanId: producer.spanId, attributes: expect.objectContaining({ 'bullmq.job.name': 'settle' }) });

      // What the worker did for that job, in MongoDB and Redis, under its processing span.
      const workerMongo = of('entia-worker', (s) => s.attributes['db.system.name'] === 'mongodb');
      const workerRedis = of('entia-worker', (s) => s.attributes['db.system.name'] === 'redis');
      expect(workerMongo.length).toBeGreaterThan(0);
      expect(workerRedis.length).toBeGreaterThan(0);
      for (const span of workerMongo) expect(under(span, consumer)).toBe(true);
    });

    it('records queries as their shape, commands by name', () => {
      const mongo = spans.filter((s) => s.attributes['db.system.name'] === 'mongodb' && typeof s.attributes['db.query.text'] === 'string');
      expect(mongo.length).toBeGreaterThan(0);
      // Every value a `?`: the shape of what was asked, never what was looked for.
      for (const span of mongo) for (const leaf of leavesOf(JSON.parse(String(span.attributes['db.query.text'])))) expect(['?', '…']).toContain(leaf);
      const redis = spans.filter((s) => s.attributes['db.system.name'] === 'redis');
      for (const span of redis) expect(span.attributes['db.query.text']).toBe(span.name);
      const withTicket = spans.find((s) => s.kind === OTLP_KIND.SERVER && typeof s.attributes['url.query'] === 'string');
      expect(withTicket?.attributes['url.query']).toBe('ticket=?');
    });

    it('sends no secret and no data: no key, token, password, signature or stored value', () => {
      const sent = receiver.bodies().join('\n');
      expect(sent.length).toBeGreaterThan(0);
      const secrets = [t.owner.apiKey, t.owner.token, ticket, note, process.env.JWT_SECRET, process.env.S3_SECRET_KEY, process.env.S3_ACCESS_KEY];
      const mongoPassword = new URL(process.env.MONGODB_URL!).password;
      const redisPassword = new URL(process.env.REDIS_URL!).password;
      for (const secret of [...secrets, mongoPassword, redisPassword].filter((s): s is string => Boolean(s))) expect(sent).not.toContain(secret);
      expect(sent).not.toMatch(/bearer|authorization|X-Amz-Signature|eyJ[A-Za-z0-9_-]{8,}\./i);
    });

    it('starts traces at requests and jobs only, and leaves no span without its parent', () => {
      const ids = new Set(spans.map((s) => s.spanId));
      // BullMQ's polling of Redis, the worker's sweeps: no trace of their own, nor orphans of one.
      const roots = spans.filter((s) => s.parentSpanId === '');
      expect(roots.length).toBeGreaterThan(0);
      expect(roots.filter((s) => s.kind !== OTLP_KIND.SERVER && s.kind !== OTLP_KIND.CONSUMER).map((s) => `${s.service} ${s.name}`)).toEqual([]);
      expect(spans.filter((s) => s.parentSpanId !== '' && !ids.has(s.parentSpanId))).toEqual([]);
    });

    it('leaves probes out', () => {
      expect(spans.filter((s) => ['/readyz', '/healthz'].includes(String(s.attributes['url.path'])))).toEqual([]);
    });
  });
});
