import { createApp } from '@entia/api';
import { Registry } from 'prom-client';
import request from 'supertest';
import { Lifecycle } from '../src/http/lifecycle';
import { metricsServer } from '../src/metrics-server';
import { testApi, type TestApi } from './support';

describe('HTTP basics', () => {
  let api: TestApi;
  beforeAll(() => {
    api = testApi();
  });
  afterAll(() => api.close());

  it('GET /healthz answers 200', async () => {
    const res = await request(api.app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz reaches MongoDB, Redis and object storage', async () => {
    const res = await request(api.app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { mongodb: 'up', redis: 'up', storage: 'up' } });
  });

  it('the metrics server (METRICS_PORT) counts the app\'s requests by route pattern and status; the app has no /metrics', async () => {
    const registry = new Registry();
    const app = createApp(api.deps, new Lifecycle(), registry);
    await request(app).get('/healthz');
    await request(app).get('/api/no_such_db/entity/000000000000000000000000');
    expect((await request(app).get('/metrics')).status).toBe(404);
    const metrics = metricsServer(registry);
    const res = await request(metrics).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/api\/:db\/entity\/:id",status="404"\} 1/);
    expect(res.text).toContain('http_request_duration_seconds_bucket');
    expect(res.text).toContain('process_resident_memory_bytes');
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
    // Only /metrics there: not the API, not the probes.
    expect((await request(metrics).get('/healthz')).status).toBe(404);
    expect((await request(metrics).get('/api/openapi.json')).status).toBe(404);
    expect((await request(metrics).post('/metrics')).status).toBe(405);
  });

  describe('X-Request-Id', () => {
    it('echoes a safe incoming id', async () => {
      const res = await request(api.app).get('/healthz').set('X-Request-Id', 'abc-123.x:y');
      expect(res.headers['x-request-id']).toBe('abc-123.x:y');
    });
    it('makes one when none is sent', async () => {
      const res = await request(api.app).get('/healthz');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
    it('replaces an unsafe one instead of echoing it', async () => {
      const res = await request(api.app).get('/healthz').set('X-Request-Id', 'a b<script>');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  it('sets security headers (helmet) and hides the framework', async () => {
    const res = await request(api.app).get('/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  describe('errors are RFC 9457 problem details', () => {
    // A body route: its media type, JSON and schema are checked before anything asks who calls.
    const BODY_ROUTE = '/api/demo/entity';
    const expectProblem = (res: request.Response, status: number) => {
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status, type: expect.stringMatching(/^urn:entia:problem:/), title: expect.any(String) });
    };

    it('404 for an unknown path', async () => {
      expectProblem(await request(api.app).get('/no/such/thing'), 404);
    });

    it('405 with Allow for a known path and another method', async () => {
      const res = await request(api.app).delete('/healthz');
      expectProblem(res, 405);
      expect(res.headers.allow).toBe('GET, HEAD');
      const post = await request(api.app).post('/api/openapi.json');
      expect(post.status).toBe(405);
      expect(post.headers.allow).toBe('GET, HEAD');
      const put = await request(api.app).put('/api/demo/aggregate');
      expect(put.status).toBe(405);
      expect(put.headers.allow).toBe('POST');
    });

    it('415 for a body that is not JSON', async () => {
      const res = await request(api.app).post(BODY_ROUTE).set('Content-Type', 'text/plain').send('type=name');
      expectProblem(res, 415);
    });

    it('400 for malformed JSON, with a pointer', async () => {
      const res = await request(api.app).post(BODY_ROUTE).set('Content-Type', 'application/json').send('[{"type": ');
      expectProblem(res, 400);
      expect(res.body.errors).toEqual([{ pointer: '', message: 'invalid JSON' }]);
    });

    it('400 for a missing body', async () => {
      const res = await request(api.app).post(BODY_ROUTE);
      expectProblem(res, 400);
    });

    it('400 naming each offending field', async () => {
      const res = await request(api.app).post(BODY_ROUTE).send([{ type: 'name', string: { $gt: '' }, extra: 1 }]);
      expectProblem(res, 400);
      expect(res.body.errors).toEqual(
        expect.arrayContaining([
          { pointer: '/0/string', message: 'must be string' },
          { pointer: '/0/extra', message: 'unknown field "extra"' },
        ]),
      );
    });

    it('400 for an oversized field, per the published schema', async () => {
      const res = await request(api.app).post(BODY_ROUTE).send([{ type: 'name', filename: 'x'.repeat(256) }]);
      expectProblem(res, 400);
      expect(res.body.errors[0]).toMatchObject({ pointer: '/0/filename' });
    });

    it('404 for a path parameter outside its pattern (it names nothing), naming the parameter', async () => {
      const res = await request(api.app).get(`/api/demo/aggregate/${'x'.repeat(201)}`);
      expectProblem(res, 404);
      expect(res.body.detail).toMatch(/^No such resource: id must match pattern/);
    });

    it('413 for a body over the limit, before it is parsed', async () => {
      const res = await request(api.app)
        .post(BODY_ROUTE)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify([{ type: 'name', string: 'x'.repeat(1024 * 1024 + 10) }]));
      expectProblem(res, 413);
    });
  });

  describe('GET /api/openapi.json', () => {
    it('describes every mounted route with the schemas that validate it', async () => {
      const res = await request(api.app).get('/api/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.1.0');
      expect(Object.keys(res.body.paths).sort()).toEqual(
        [
          '/api/auth',
          '/api/auth/oidc/{provider}',
          '/api/auth/oidc/{provider}/callback',
          '/api/auth/oidc/token',
          '/api/auth/passkey/options',
          '/api/auth/passkey',
          '/api/auth/refresh',
          '/api/auth/{provider}',
          '/api/{db}/passkeys/options',
          '/api/{db}/passkey',
          '/api/{db}/passkeys',
          '/api/{db}',
          '/api/{db}/entity',
          '/api/{db}/entity/query',
          '/api/{db}/entity/{id}',
          '/api/{db}/property/{id}',
          '/api/{db}/entity/{id}/aggregate',
          '/api/{db}/entity/{id}/pending',
          '/api/{db}/entity/{id}/duplicate',
          '/api/{db}/entity/{id}/history',
          '/api/{db}/schema',
          '/api/{db}/graphql',
          '/api/{db}/entity/{id}/thumbnail/{size}',
          '/api/{db}/property/{id}/thumbnail/{size}',
          '/api/{db}/aggregate',
          '/api/{db}/aggregate/{id}',
          '/api/{db}/changes',
          '/api/{db}/changes/ticket',
          '/api/{db}/entity/{id}/deliveries',
          '/api/openapi.json',
          '/healthz',
          '/readyz',
        ].sort(),
      );
      expect(Object.keys(res.body.paths['/api/{db}/entity/{id}']).sort()).toEqual(['delete', 'get', 'post']);
      expect(Object.keys(res.body.paths['/api/{db}/entity/{id}/aggregate']).sort()).toEqual(['get', 'post']);
      expect(Object.keys(res.body.paths['/api/{db}/graphql']).sort()).toEqual(['get', 'post']);
      const create = res.body.paths['/api/{db}/entity'].post;
      expect(create.requestBody.content['application/json'].schema).toMatchObject({ type: 'array', minItems: 1, maxItems: 1000 });
      expect(create.requestBody.content['application/json'].schema.items.properties.reference).toMatchObject({ pattern: '^[0-9a-f]{24}$' });
      expect(create.responses['201'].content['application/json'].schema.properties).toHaveProperty('properties');
      expect(res.body.paths['/api/{db}/entity/{id}'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['db', 'id', 'props', 'at']);
      expect(create.requestBody.content['application/json'].schema.items).toMatchObject({ type: 'object', additionalProperties: false });
      expect(res.body.paths['/api/{db}/aggregate/{id}'].get.parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'id', in: 'path', required: true, schema: expect.objectContaining({ pattern: '^rebuild-[a-z][a-z0-9_]{2,62}-[0-9a-f]{32}$' }) })]),
      );
    });
  });
});
