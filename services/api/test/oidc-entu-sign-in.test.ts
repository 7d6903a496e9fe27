import request from 'supertest';
import { followToRedirect, startIdp, type Idp } from './oidc/idp';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// Provider sign-in the way Entu's web client starts it (issue 33, item 1), end to end against a
// real OpenID provider: GET /api/auth/<provider>?next=<app>/auth/callback?key= runs the same
// checked code flow (PKCE, state, nonce, issuer) and returns the browser to `next` with a one-time
// key appended; GET /api/auth exchanges that key, once, for the usual answer.

const PUBLIC_URL = 'http://entia.localhost';
const CALLBACK = 'http://app.localhost/auth/callback';
const NEXT = `${CALLBACK}?key=`;
const SECRET = 'a-client-secret-of-the-test-provider';

let idp: Idp;
let api: TestApi;
let tenant: TestTenant;
let second: TestTenant;

const providerCallback = `${PUBLIC_URL}/api/auth/oidc/google/callback`;

beforeAll(async () => {
  idp = await startIdp({ clients: [{ client_id: 'entia', client_secret: SECRET, redirect_uris: [providerCallback] }] });
  api = testApi({
    PUBLIC_URL,
    // Named as the client's button is: its path is /auth/google.
    OIDC_PROVIDERS: JSON.stringify({ google: { issuer: idp.issuer, clientId: 'entia', clientSecret: SECRET } }),
    OIDC_REDIRECT_URIS: `${CALLBACK},http://app.localhost/signed-in`,
    KEY_RECHECK_MS: '0',
  });
  tenant = await testTenant(api);
  second = await testTenant(api);
}, 60_000);

afterAll(async () => {
  await Promise.all([tenant?.close(), second?.close()]);
  await api?.close();
  await idp?.stop();
});

/** The whole browser round trip, up to the address the API returns the browser to. */
async function signIn(loginHint: string, next = NEXT, tamper: (authorization: URL) => void = () => undefined): Promise<string> {
  const start = await request(api.app).get('/api/auth/google').query({ next, login_hint: loginHint });
  expect(start.status).toBe(302);
  expect(start.headers['cache-control']).toBe('no-store');
  const authorization = new URL(start.headers.location!);
  tamper(authorization);
  const at = await followToRedirect(authorization.href, providerCallback);
  const back = await request(api.app).get(`${at.pathname}${at.search}`);
  expect(back.status).toBe(302);
  return back.headers.location!;
}

/** The key as Entu's client reads it: everything after `next`. */
function keyOf(location: string, next = NEXT): string {
  expect(location.startsWith(next)).toBe(true);
  return location.slice(next.length);
}

function exchange(key: string, query: Record<string, string> = {}) {
  return request(api.app).get('/api/auth').query(query).set('Authorization', `Bearer ${key}`);
}

async function personWithIdentity(where: TestTenant, name: string, sub: string): Promise<string> {
  const person = await where.newPerson(name);
  const res = await request(api.app)
    .post(`/api/${where.db}/entity/${person.id}`)
    .set('Authorization', where.owner.auth)
    .send([{ type: '_identity', string: `${idp.issuer} ${sub}` }]);
  expect(res.status).toBe(200);
  return person.id;
}

describe('provider sign-in started by Entu’s web client', () => {
  it('returns to `next` with a one-time key; GET /api/auth?db= exchanges it once for a token of that person', async () => {
    const ann = await personWithIdentity(tenant, 'Ann', 'ann');
    const key = keyOf(await signIn('ann'));
    expect(key).toMatch(/^once-[A-Za-z0-9_-]{43}$/);

    const first = await exchange(key, { db: tenant.db });
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body.accounts).toEqual([{ _id: tenant.db, name: tenant.db, user: { _id: ann, name: 'Ann' } }]);
    expect(first.body.user).toEqual({ name: 'Ann' });
    expect(Date.parse(first.body.expires)).toBeGreaterThan(Date.now());
    const own = await request(api.app).get(`/api/${tenant.db}/entity/${ann}`).set('Authorization', `Bearer ${first.body.token}`);
    expect([own.status, own.body.entity.name[0].string]).toEqual([200, 'Ann']);

    // Used once: replayed, it opens nothing.
    expect((await exchange(key, { db: tenant.db })).status).toBe(401);
    expect((await exchange(key)).status).toBe(401);
  });

  it('keeps the app’s own query (an invitation) in `next`, and accepts `account` as Entu’s name for `db`', async () => {
    const bea = await personWithIdentity(tenant, 'Bea', 'bea');
    const next = `${CALLBACK}?invite=aaa.bbb.ccc&key=`;
    const location = await signIn('bea', next);
    expect(new URL(location).searchParams.get('invite')).toBe('aaa.bbb.ccc');
    const res = await exchange(keyOf(location, next), { account: tenant.db });
    expect([res.status, res.body.accounts[0].user._id]).toEqual([200, bea]);
  });

  it('without `db`, opens the one database that knows the identity; several are a 409 naming them; none is a 401', async () => {
    const cy = await personWithIdentity(second, 'Cy', 'cy');
    const alone = await exchange(keyOf(await signIn('cy')));
    expect(alone.status).toBe(200);
    expect(alone.body.accounts).toEqual([{ _id: second.db, name: second.db, user: { _id: cy, name: 'Cy' } }]);

    await personWithIdentity(tenant, 'Cy', 'cy');
    const both = await exchange(keyOf(await signIn('cy')));
    expect(both.status).toBe(409);
    expect(both.body.detail).toContain(tenant.db);
    expect(both.body.detail).toContain(second.db);
    // Naming one of them signs in there.
    const named = await exchange(keyOf(await signIn('cy')), { db: second.db });
    expect([named.status, named.body.accounts[0].user._id]).toEqual([200, cy]);

    const nobody = await exchange(keyOf(await signIn('nobody-knows-me')));
    expect(nobody.status).toBe(401);
    expect(nobody.body.detail).toContain('not a person of any database');
  });

  it('refuses an identity the named database does not know, and creates nobody', async () => {
    const before = (await request(api.app).get(`/api/${tenant.db}/entity`).query({ limit: 0 }).set('Authorization', tenant.owner.auth)).body.count;
    expect((await exchange(keyOf(await signIn('stranger')), { db: tenant.db })).status).toBe(401);
    const after = (await request(api.app).get(`/api/${tenant.db}/entity`).query({ limit: 0 }).set('Authorization', tenant.owner.auth)).body.count;
    expect(after).toBe(before);
  });

  it('checks a named database before spending the key: an unknown one is a 404 and the key still works', async () => {
    const dee = await personWithIdentity(tenant, 'Dee', 'dee');
    const key = keyOf(await signIn('dee'));
    expect((await exchange(key, { db: 'nosuchdatabase' })).status).toBe(404);
    const res = await exchange(key, { db: tenant.db });
    expect([res.status, res.body.accounts[0].user._id]).toEqual([200, dee]);
  });

  it('returns a refused provider answer to `next` with its reason and no key', async () => {
    await personWithIdentity(tenant, 'Eve', 'eve');
    const location = new URL(await signIn('eve', NEXT, (url) => url.searchParams.set('nonce', 'chosen-by-an-attacker')));
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('key')).toBe('');
    expect(location.searchParams.get('error')).toBe('access_denied');
  });

  it.each([
    ['another origin', 'https://evil.example/auth/callback?key='],
    ['a look-alike host', 'http://app.localhost.evil.example/auth/callback?key='],
    ['another path of the app', 'http://app.localhost/steal?key='],
    ['a path escaping the allowed one', 'http://app.localhost/auth/callback/../../steal?key='],
    ['a fragment', 'http://app.localhost/auth/callback#key='],
    ['a relative address', '/auth/callback?key='],
    ['a protocol-relative address', '//evil.example/auth/callback?key='],
    ['a javascript: URL', 'javascript:alert(document.cookie)//http://app.localhost/auth/callback'],
    ['credentials in the URL', 'http://user:pw@app.localhost/auth/callback?key='],
    ['an oversized address', `${NEXT}${'x'.repeat(3000)}`],
  ])('refuses `next` with %s: 400, and never redirects', async (_, next) => {
    const res = await request(api.app).get('/api/auth/google').query({ next });
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });

  it('refuses missing, malformed and hostile parameters, unknown providers, and forged keys', async () => {
    expect((await request(api.app).get('/api/auth/google')).status).toBe(400);
    expect((await request(api.app).get('/api/auth/google').query({ next: NEXT, extra: '1' })).status).toBe(400);
    expect((await request(api.app).get('/api/auth/google').query('next[$ne]=x')).status).toBe(400);
    expect((await request(api.app).get('/api/auth/github').query({ next: NEXT })).status).toBe(404);
    expect((await request(api.app).get('/api/auth/__proto__').query({ next: NEXT })).status).toBe(404);
    expect((await request(api.app).get('/api/auth/constructor').query({ next: NEXT })).status).toBe(404);
    // Paths beside it keep their own meaning.
    expect((await request(api.app).get('/api/auth/refresh')).status).toBe(401);

    expect((await exchange(`once-${'A'.repeat(43)}`, { db: tenant.db })).status).toBe(401);
    expect((await exchange(`once-${'A'.repeat(43)}`)).status).toBe(401);
    expect((await exchange(keyOf(await signIn('ann')), { db: '$where' })).status).toBe(400);
    expect((await exchange('once-short')).status).toBe(401);
  });
});
