import { createApp } from '@entia/api';
import request from 'supertest';
import { Lifecycle } from '../src/http/lifecycle';
import { testApi, type TestApi } from './support';

// SPEC §11: allowed origins are configuration; preflight answered on every API route. These are the
// headers as a browser reads them; browser.test.ts shows a real browser acting on them.
const PAGE = 'https://app.example.com';
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-None-Match', 'Idempotency-Key', 'X-Request-Id'];
const EXPOSED_HEADERS = ['ETag', 'Location', 'Retry-After', 'X-Request-Id', 'X-Cache', 'Idempotent-Replayed'];

const list = (header: unknown) => String(header ?? '').split(',').map((h) => h.trim().toLowerCase());

describe('CORS with CORS_ORIGINS listing origins', () => {
  let api: TestApi;
  beforeAll(() => {
    api = testApi({ CORS_ORIGINS: `${PAGE},http://127.0.0.1:8080` });
  });
  afterAll(() => api.close());

  const preflight = (path: string, method: string, origin = PAGE) =>
    request(api.app)
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', method)
      .set('Access-Control-Request-Headers', 'authorization,content-type,if-none-match,idempotency-key,x-request-id');

  it.each([
    ['/api/auth', 'GET'],
    ['/api/some_db/entity', 'POST'],
    ['/api/some_db/entity/0123456789abcdef01234567', 'DELETE'],
    ['/api/some_db/property/0123456789abcdef01234567', 'GET'],
    ['/api/some_db/entity/0123456789abcdef01234567/aggregate', 'POST'],
    ['/api/openapi.json', 'GET'],
  ])('answers a preflight for %s (%s) with 204 and what may be sent', async (path, method) => {
    const res = await preflight(path, method);
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
    expect(list(res.headers['access-control-allow-methods'])).toContain(method.toLowerCase());
    expect(list(res.headers['access-control-allow-headers'])).toEqual(expect.arrayContaining(ALLOWED_HEADERS.map((h) => h.toLowerCase())));
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    expect(list(res.headers.vary)).toContain('origin');
  });

  it('gives an origin that is not listed no Access-Control-Allow-Origin, so the browser refuses', async () => {
    const res = await preflight('/api/auth', 'GET', 'https://evil.example.com');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await request(api.app).get('/healthz').set('Origin', 'https://evil.example.com');
    expect(get.status).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('marks answers to allowed origins and exposes the headers a page needs', async () => {
    const res = await request(api.app).get('/healthz').set('Origin', 'http://127.0.0.1:8080');
    expect(res.headers['access-control-allow-origin']).toBe('http://127.0.0.1:8080');
    expect(list(res.headers['access-control-expose-headers'])).toEqual(expect.arrayContaining(EXPOSED_HEADERS.map((h) => h.toLowerCase())));
  });

  it.each([
    ['400', 400, () => request(api.app).post('/api/nosuchdb/entity').set('Content-Type', 'application/json').send('{')],
    ['401', 401, () => request(api.app).get('/api/auth').set('Authorization', 'Bearer nope')],
    ['404', 404, () => request(api.app).get('/no/such/thing')],
    ['405', 405, () => request(api.app).put('/api/auth')],
    ['415', 415, () => request(api.app).post('/api/nosuchdb/entity').set('Content-Type', 'text/plain').send('x')],
  ] as const)('marks errors too: %s problem details', async (_name, status, send) => {
    const res = await send().set('Origin', PAGE);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['access-control-allow-origin']).toBe(PAGE);
  });

  it('marks 429 (with its Retry-After exposed) and 503 while shutting down', async () => {
    const limited = testApi({ CORS_ORIGINS: PAGE, RATE_LIMIT_MAX: '1' });
    try {
      await request(limited.app).get('/api/nosuchdb/entity').set('Origin', PAGE);
      const res = await request(limited.app).get('/api/nosuchdb/entity').set('Origin', PAGE);
      expect([res.status, res.headers['access-control-allow-origin']]).toEqual([429, PAGE]);
      expect(list(res.headers['access-control-expose-headers'])).toContain('retry-after');

      const lifecycle = new Lifecycle();
      lifecycle.shuttingDown = true;
      const draining = await request(createApp(limited.deps, lifecycle)).get('/api/auth').set('Origin', PAGE);
      expect([draining.status, draining.headers['access-control-allow-origin']]).toEqual([503, PAGE]);
    } finally {
      await limited.close();
    }
  });
});

describe('CORS_ORIGINS=*', () => {
  let api: TestApi;
  beforeAll(() => {
    api = testApi({ CORS_ORIGINS: '*' });
  });
  afterAll(() => api.close());

  it('lets any origin read any answer, without credentials', async () => {
    const preflight = await request(api.app).options('/api/some_db/entity').set('Origin', 'http://localhost:5173').set('Access-Control-Request-Method', 'POST');
    expect([preflight.status, preflight.headers['access-control-allow-origin']]).toEqual([204, '*']);
    const res = await request(api.app).get('/api/auth').set('Origin', 'https://anything.example');
    expect([res.status, res.headers['access-control-allow-origin']]).toEqual([401, '*']);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('no CORS_ORIGINS (the default outside development)', () => {
  let api: TestApi;
  beforeAll(() => {
    api = testApi({ NODE_ENV: 'production' });
  });
  afterAll(() => api.close());

  it('sends no CORS header, and still answers OPTIONS on a route (not 405)', async () => {
    const preflight = await request(api.app).options('/api/auth').set('Origin', PAGE).set('Access-Control-Request-Method', 'GET');
    expect(preflight.status).toBe(204);
    expect(preflight.headers.allow).toBe('GET, HEAD');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect((await request(api.app).get('/healthz').set('Origin', PAGE)).headers['access-control-allow-origin']).toBeUndefined();
  });
});
