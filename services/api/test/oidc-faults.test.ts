import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, type ManagedServer } from '@entia/stack';
import request from 'supertest';
import { followToRedirect, startIdp, type Idp } from './oidc/idp';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// OpenID Connect sign-in under concurrency and failures (issue 20): the same new identity signing
// in several times at once makes one person; a provider or Redis going away mid-sign-in is an
// answer the app can act on (an error back at its page, a 503), never a 500 or a half-made person.

const PUBLIC_URL = 'http://entia.localhost';
const APP = 'http://app.localhost/signed-in';
const SECRET = 'a-client-secret-of-the-test-provider';
const CALLBACK = `${PUBLIC_URL}/api/auth/oidc/test/callback`;

const setup = (issuer: string, more: Record<string, string> = {}) => ({
  PUBLIC_URL,
  OIDC_PROVIDERS: JSON.stringify({ test: { issuer, clientId: 'entia', clientSecret: SECRET } }),
  OIDC_REDIRECT_URIS: APP,
  ...more,
});

const clients = [{ client_id: 'entia', client_secret: SECRET, redirect_uris: [CALLBACK] }];

async function authorizationUrl(api: TestApi, db: string, loginHint: string): Promise<string> {
  const res = await request(api.app).get('/api/auth/oidc/test').query({ db, redirect: APP, login_hint: loginHint });
  expect(res.status).toBe(302);
  return res.headers.location!;
}

async function callback(api: TestApi, at: URL): Promise<URL> {
  const res = await request(api.app).get(`${at.pathname}${at.search}`);
  expect(res.status).toBe(302);
  return new URL(res.headers.location!);
}

describe('OpenID Connect sign-in: concurrent first sign-ins', () => {
  let idp: Idp;
  let api: TestApi;
  let tenant: TestTenant;

  beforeAll(async () => {
    idp = await startIdp({ clients });
    api = testApi(setup(idp.issuer));
    tenant = await testTenant(api);
  }, 60_000);

  afterAll(async () => {
    await tenant?.close();
    await api?.close();
    await idp?.stop();
  });

  it('the same new identity registering itself five times at once makes one person, and each sign-in opens it', async () => {
    const database = (await api.deps.store.registry.database(tenant.db))!.databaseEntity;
    const on = await request(api.app).post(`/api/${tenant.db}/entity/${database}`).set('Authorization', tenant.owner.auth).send([{ type: 'oidc_self_registration', boolean: true }]);
    expect(on.status).toBe(200);

    // Five sign-ins reach the provider's answer first; then their callbacks race.
    const answers = await Promise.all(Array.from({ length: 5 }, async () => followToRedirect(await authorizationUrl(api, tenant.db, 'zed'), CALLBACK)));
    const backs = await Promise.all(answers.map((at) => callback(api, at)));
    const people = await Promise.all(
      backs.map(async (back) => {
        expect(back.searchParams.get('error_description')).toBeNull();
        const res = await request(api.app).post('/api/auth/oidc/token').send({ code: back.searchParams.get('entia_code') });
        expect(res.status).toBe(200);
        return res.body.accounts[0].user._id as string;
      }),
    );
    expect(new Set(people).size).toBe(1);
    const named = await request(api.app).get(`/api/${tenant.db}/entity`).query({ 'name.string': 'Person zed' }).set('Authorization', tenant.owner.auth);
    expect(named.body.count).toBe(1);
  });
});

describe('OpenID Connect sign-in: the provider or Redis going away', () => {
  const dir = mkdtempSync(join(tmpdir(), 'entia-oidc-faults-'));
  let idp: Idp;
  let redis: ManagedServer & { url: string };
  let api: TestApi;
  let tenant: TestTenant;
  let person: string;

  beforeAll(async () => {
    [idp, redis] = await Promise.all([startIdp({ clients }), startRedis({ dir: join(dir, 'redis') })]);
    api = testApi(setup(idp.issuer, { REDIS_URL: redis.url, WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: 'http://localhost:5173' }));
    tenant = await testTenant(api);
    person = (await tenant.newPerson('Quinn')).id;
    const linked = await request(api.app)
      .post(`/api/${tenant.db}/entity/${person}`)
      .set('Authorization', tenant.owner.auth)
      .send([{ type: '_identity', string: `${idp.issuer} quinn` }]);
    expect(linked.status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await tenant?.close();
    await api?.close();
    await Promise.allSettled([idp?.stop(), redis?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a provider gone between its answer and the callback: back to the app with temporarily_unavailable; a new start is 503', async () => {
    // Discovered already (the start); the provider then answers, and dies before the code is redeemed.
    const at = await followToRedirect(await authorizationUrl(api, tenant.db, 'quinn'), CALLBACK);
    await idp.stop();
    const back = await callback(api, at);
    expect(back.searchParams.get('error')).toBe('temporarily_unavailable');
    expect(back.searchParams.get('entia_code')).toBeNull();
    // A fresh API has not discovered the provider: starting is 503, not 500.
    const fresh = testApi(setup(idp.issuer, { REDIS_URL: redis.url }));
    try {
      const res = await request(fresh.app).get('/api/auth/oidc/test').query({ db: tenant.db, redirect: APP });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBeDefined();
    } finally {
      await fresh.close();
    }
  }, 60_000);

  it('Redis gone: starting, exchanging a code and passkey options are 503, never 500', async () => {
    await redis.kill();
    const started = await request(api.app).get('/api/auth/oidc/test').query({ db: tenant.db, redirect: APP });
    const exchanged = await request(api.app).post('/api/auth/oidc/token').send({ code: 'a'.repeat(43) });
    const options = await request(api.app).post('/api/auth/passkey/options').send({ db: tenant.db });
    expect([started.status, exchanged.status, options.status]).toEqual([503, 503, 503]);
  }, 60_000);
});
