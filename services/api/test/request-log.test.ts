import { closeDeps, createApp, createLogger, openDeps } from '@entia/api';
import express from 'express';
import request from 'supertest';
import { requestLog } from '../src/http/request-log';
import { testConfig, type TestApi } from './support';

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

  beforeAll(() => {
    const deps = openDeps(testConfig(), createLogger('info', { write: (line: string) => void lines.push(line) }));
    api = { app: createApp(deps), deps, close: () => closeDeps(deps) };
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
    expect((await request(api.app).get('/readyz').set('X-Request-Id', 'client-42')).headers['x-request-id']).toBe('client-42');
    expect(logged().find((line) => line.msg === 'request completed')?.req?.id).toBe('client-42');
    const unsafe = await request(api.app).get('/readyz').set('X-Request-Id', 'bad id\twith "quotes"');
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('leaves the liveness probe out', async () => {
    expect((await request(api.app).get('/healthz')).status).toBe(200);
    expect(logged().filter((line) => line.req?.url === '/healthz')).toEqual([]);
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
});
