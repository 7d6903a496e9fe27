import jwt from 'jsonwebtoken';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { signIn, testTenant, writtenOf, type Person, type TestTenant } from './tenant';

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
    const path = '/api/no_such_db/entity/000000000000000000000000';
    const first = await request(api.app).get(path);
    expect(first.status).toBe(404);
    // IETF draft 8 headers: the policy (3 per 60 s window) and what is left of it.
    expect(first.headers['ratelimit-policy']).toBe('"window"; q=3; w=60');
    expect(first.headers.ratelimit).toMatch(/^"window"; r=2; t=(60|59)$/);
    expect((await request(other.app).get(path)).headers.ratelimit).toMatch(/^"window"; r=1; t=\d+$/);
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

describe('signed-in callers are limited per person (issue 14)', () => {
  let setup: TestApi;
  let limited: TestApi;
  let t: TestTenant;
  beforeAll(() => {
    // Data is made through an unlimited app; the limited one shares the data, not the counts.
    setup = testApi();
    limited = testApi({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_MS: '60000' });
  });
  afterAll(async () => {
    await t?.close();
    await setup.close();
    await limited.close();
  });

  it('counts every token of a person in one window, whichever API key it came from; other persons have their own', async () => {
    t = await testTenant(setup);
    const person = await t.newPerson('Many Keys');
    const added = await request(setup.app).post(`/api/${t.db}/entity/${person.id}`).set('Authorization', t.owner.auth).send([{ type: '_api_key' }]);
    expect(added.status).toBe(200);
    const second = await signIn(setup, person.id, writtenOf(added.body, '_api_key')[0]!.string);
    const read = (by: Person) => request(limited.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', by.auth);

    expect((await read(person)).status).toBe(200);
    expect((await read(person)).status).toBe(200);
    expect((await read(second)).status).toBe(200);
    // A fresh key does not open a fresh window.
    expect((await read(second)).status).toBe(429);
    expect((await read(person)).status).toBe(429);
    expect((await read(t.owner)).status).toBe(200);
  });
});

/**
 * Failed authentications are limited per IP (SPEC §11, issue 14): a request whose token is forged,
 * expired or malformed, and a key exchange with a wrong API key, count against the IP they come
 * from. Each test has an API of its own (a Redis prefix of its own), so each starts with a full
 * budget; supertest's requests all come from 127.0.0.1.
 */
describe('failed authentications count per IP', () => {
  const LIMIT = 3;
  let setup: TestApi;
  let tenant: TestTenant;
  let api: TestApi;

  beforeAll(async () => {
    setup = testApi({ RATE_LIMIT_MAX: '1000' });
    tenant = await testTenant(setup);
  });
  beforeEach(() => {
    api = testApi({ RATE_LIMIT_MAX: String(LIMIT), RATE_LIMIT_WINDOW_MS: '60000' });
  });
  afterEach(() => api.close());
  afterAll(async () => {
    await tenant.close();
    await setup.close();
  });

  const secret = () => setup.deps.config.JWT_SECRET;
  const kid = () => (jwt.decode(tenant.owner.token, { complete: true }) as { header: { kid: string } }).header.kid;
  const badTokens: [string, () => string][] = [
    ['a forged token', () => `Bearer ${jwt.sign({ accounts: { [tenant.db]: tenant.owner.id } }, 'not-the-secret-0123456789abcdef-xyz', { audience: 'entia', expiresIn: 3600, keyid: kid() })}`],
    ['an expired token', () => `Bearer ${jwt.sign({ accounts: { [tenant.db]: tenant.owner.id }, exp: Math.floor(Date.now() / 1000) - 60 }, secret(), { audience: 'entia', keyid: kid() })}`],
    ['garbage', () => 'Bearer garbage'],
    ['a Basic header', () => `Basic ${Buffer.from('a:b').toString('base64')}`],
  ];

  it.each(badTokens)('%s: 401 until the limit, then 429 with Retry-After', async (_name, header) => {
    const path = `/api/${tenant.db}/entity`;
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) statuses.push((await request(api.app).get(path).set('Authorization', header())).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const res = await request(api.app).post(path).set('Authorization', header()).send([{ type: 'name', string: 'x' }]);
    expect(res.status).toBe(429);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a wrong API key at /api/auth: 401 until the limit, then 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i++) statuses.push((await request(api.app).get('/api/auth').set('Authorization', `Bearer ${'x'.repeat(43)}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
  });

  it("failed authentications use up the IP's budget, not a signed-in caller's", async () => {
    const forged = badTokens[0]![1]();
    expect((await request(api.app).get(`/api/${tenant.db}/entity`).set('Authorization', forged)).status).toBe(401);
    expect((await request(api.app).get('/api/auth').set('Authorization', 'Bearer wrong-key-wrong-key-wrong')).status).toBe(401);
    expect((await request(api.app).get(`/api/${tenant.db}/entity`)).status).toBe(200);
    // The IP's budget is spent: anonymous requests and further failures are limited …
    expect((await request(api.app).get(`/api/${tenant.db}/entity`)).status).toBe(429);
    expect((await request(api.app).get(`/api/${tenant.db}/entity`).set('Authorization', forged)).status).toBe(429);
    // … while a valid token is counted as its own caller.
    expect((await request(api.app).get(`/api/${tenant.db}/entity`).set('Authorization', tenant.owner.auth)).status).toBe(200);
  });
});
