import request from 'supertest';
import { testApi, type TestApi } from './support';

describe('rate limiting in Redis', () => {
  let api: TestApi;
  let other: TestApi;
  beforeAll(() => {
    // Two app instances on one prefix stand for two API replicas sharing Redis.
    api = testApi({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
    other = testApi({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000', REDIS_PREFIX: api.deps.config.REDIS_PREFIX });
  });
  afterAll(async () => {
    await api.close();
    await other.close();
  });

  it('answers 429 with Retry-After once a client exceeds its limit, counted across replicas', async () => {
    const path = '/api/jobs/123456';
    expect((await request(api.app).get(path)).status).toBe(404);
    expect((await request(other.app).get(path)).status).toBe(404);
    expect((await request(api.app).get(path)).status).toBe(404);
    const res = await request(other.app).get(path);
    expect(res.status).toBe(429);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(res.body).toMatchObject({ status: 429, type: 'urn:entia:problem:rate-limited' });
  });

  it('never limits the probes', async () => {
    for (let i = 0; i < 5; i++) expect((await request(api.app).get('/healthz')).status).toBe(200);
  });
});
