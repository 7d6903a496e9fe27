import { closeDeps, createApp, createLogger, openDeps } from '@entia/api';
import { healthServer } from '@entia/worker';
import express from 'express';
import request from 'supertest';
import { Registry } from 'prom-client';
import { isProbe, requestLog } from '../src/http/request-log';
import { metricsServer } from '../src/metrics-server';
import { testConfig, type TestApi } from './support';
import { stackConnected } from '../../../libs/store/test/stack-reach';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  req?: { id: string; method: string; url: string };
  res?: { statusCode: number };
  responseTime?: number;
}

/** The request log (`http/request-log.ts`): one line per answered request, joined by its id. */
describe('the request log', () => {
  const lines: string[] = [];
  let api: TestApi;
  const logged = () => lines.map((line) => JSON.parse(line) as Line);

  beforeAll(async () => {
    const deps = openDeps(testConfig(), createLogger('info', { write: (line: string) => void lines.push(line) }));
    api = { app: createApp(deps), deps, close: () => closeDeps(deps) };
    // This test is about the log line of a 404: on a busy machine MongoDB's first connect may not be
    // done yet, and the first request would be answered 503 (truthfully, but not what is tested).
    await stackConnected(deps.store);
  });
  afterAll(() => api.close());
  beforeEach(() => void (lines.length = 0));

  it('writes one "request completed" line per request, with its id, method, URL, status and time', async () => {
    const res = await request(api.app).get('/api/no_such_db/entity?name.string=x');
    expect(res.status).toBe(404);
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const completed = logged().filter((line) => line.msg === 'request completed');
    expect(completed).toEqual([
      expect.objectContaining({ level: 30, req: expect.objectContaining({ id, method: 'GET', url: '/api/no_such_db/entity?name.string=x' }), res: expect.objectContaining({ statusCode: 404 }) }),
    ]);
    expect(typeof completed[0]!.responseTime).toBe('number');
  });

  it('keeps a safe incoming X-Request-Id, replaces an unsafe one', async () => {
    expect((await request(api.app).get('/api/openapi.json').set('X-Request-Id', 'client-42')).headers['x-request-id']).toBe('client-42');
    expect(logged().find((line) => line.msg === 'request completed')?.req?.id).toBe('client-42');
    const unsafe = await request(api.app).get('/readyz').set('X-Request-Id', 'bad id\twith "quotes"');
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes no line for the probes at LOG_LEVEL=info, while the request beside them is logged at info', async () => {
    expect((await request(api.app).get('/healthz')).status).toBe(200);
    expect((await request(api.app).get('/readyz?verbose=1')).status).toBe(200);
    expect((await request(api.app).get('/api/openapi.json')).status).toBe(200);
    // (A dependency that is down adds the readiness handler's own warning, which names no request.)
    expect(logged().filter((line) => line.req).map((line) => [line.level, line.msg, line.req?.url])).toEqual([[30, 'request completed', '/api/openapi.json']]);
  });

  it("lines a handler writes through req.log carry the request's id; a 5xx is logged at error", async () => {
    const app = express();
    app.use(requestLog(createLogger('info', { write: (line: string) => void lines.push(line) }), () => false));
    app.get('/note', (req, res) => {
      req.log.info('a note');
      res.status(503).end();
    });
    const res = await request(app).get('/note');
    const id = res.headers['x-request-id'];
    expect(logged().map((line) => [line.msg, line.level, line.reqId ?? line.req?.id])).toEqual([
      ['a note', 30, id],
      ['request errored', 50, id],
    ]);
  });

  it("logs a probe's 503 (not ready) at debug, but any other 5xx of a probe at error", async () => {
    const app = express();
    app.use(requestLog(createLogger('info', { write: (line: string) => void lines.push(line) }), isProbe));
    app.get('/readyz', (_req, res) => void res.status(503).end());
    app.get('/healthz', (_req, res) => void res.status(500).end());
    await request(app).get('/readyz').expect(503);
    await request(app).get('/healthz').expect(500);
    expect(logged().map((line) => [line.msg, line.level, line.req?.url])).toEqual([['request errored', 50, '/healthz']]);
  });
});

/** Probes and scrapes, every few seconds per pod, are logged at debug: there when asked for, not at info. */
describe('the request log at LOG_LEVEL=debug', () => {
  const lines: string[] = [];
  let api: TestApi;
  const completed = () =>
    lines.map((line) => JSON.parse(line) as Line).filter((line) => line.msg === 'request completed').map((line) => [line.level, line.req?.url, line.res?.statusCode]);

  beforeAll(() => {
    const deps = openDeps(testConfig(), createLogger('debug', { write: (line: string) => void lines.push(line) }));
    api = { app: createApp(deps), deps, close: () => closeDeps(deps) };
  });
  afterAll(() => api.close());
  beforeEach(() => void (lines.length = 0));

  it('logs /healthz and /readyz at debug (20), and any other request still at info (30)', async () => {
    await request(api.app).get('/healthz').expect(200);
    await request(api.app).get('/readyz').expect(200);
    await request(api.app).get('/api/openapi.json').expect(200);
    expect(completed()).toEqual([
      [20, '/healthz', 200],
      [20, '/readyz', 200],
      [30, '/api/openapi.json', 200],
    ]);
  });

  it("logs the metrics port's scrapes at debug, with the path and no headers or query", async () => {
    const logger = createLogger('debug', { write: (line: string) => void lines.push(line) });
    const metrics = metricsServer(new Registry(), logger);
    await request(metrics).get('/metrics?token=abc').set('Authorization', 'Bearer scrape-secret').expect(200);
    expect(completed()).toEqual([[20, '/metrics', 200]]);
    expect(lines.join('\n')).not.toMatch(/scrape-secret|token=abc/);

    // …and nothing at info.
    lines.length = 0;
    await request(metricsServer(new Registry(), createLogger('info', { write: (line: string) => void lines.push(line) }))).get('/metrics').expect(200);
    expect(lines).toEqual([]);
  });

  it("logs the worker's probes and scrapes (its WORKER_PORT) at debug too, and nothing of them at info", async () => {
    const readiness = async () => ({ ready: true, body: { status: 'ready' as const, checks: { mongodb: 'up' as const } }, failures: {} });
    const health = (level: string) => healthServer({ readiness, stuck: () => ({}), registry: new Registry() }, createLogger(level, { write: (line: string) => void lines.push(line) }));
    for (const path of ['/healthz', '/readyz', '/metrics?token=abc']) await request(health('debug')).get(path).set('Authorization', 'Bearer scrape-secret').expect(200);
    expect(completed()).toEqual([
      [20, '/healthz', 200],
      [20, '/readyz', 200],
      [20, '/metrics', 200],
    ]);
    expect(lines.join('\n')).not.toMatch(/scrape-secret|token=abc/);

    lines.length = 0;
    for (const path of ['/healthz', '/readyz', '/metrics']) await request(health('info')).get(path).expect(200);
    expect(lines).toEqual([]);
  });
});
