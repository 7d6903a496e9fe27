import { OidcSignInError, completeOidcSignIn, oidcSignInUrl } from '@entia/client';
import request from 'supertest';
import { followToRedirect, startIdp, type Idp } from './oidc/idp';
import { testApi, type TestApi } from './support';
import { testTenant, writtenOf, type TestTenant } from './tenant';

// OpenID Connect sign-in (issue 20) end to end: a real OpenID provider (oidc-provider, its own
// process) signs people in as its `login_hint` says; the API discovers it, starts the flow,
// redeems the provider's code with PKCE and checks state, nonce and issuer; the app's redirect
// gets a one-time code, exchanged by POST for the token. Only the browser is played by fetch.

const PUBLIC_URL = 'http://entia.localhost';
const APP = 'http://app.localhost/signed-in';
const SECRET = 'a-client-secret-of-the-test-provider';
const RECHECK_MS = 0;

let idp: Idp;
let elsewhere: Idp;
let api: TestApi;
let tenant: TestTenant;

const callbackOf = (provider: string) => `${PUBLIC_URL}/api/auth/oidc/${provider}/callback`;

beforeAll(async () => {
  const clients = [{ client_id: 'entia', client_secret: SECRET, redirect_uris: [callbackOf('test'), callbackOf('elsewhere')] }];
  idp = await startIdp({ clients });
  // A provider whose discovery document names another issuer than the address it is configured by.
  elsewhere = await startIdp({ clients, issuer: (port) => `http://localhost:${port}` });
  api = testApi({
    PUBLIC_URL,
    OIDC_PROVIDERS: JSON.stringify({
      test: { issuer: idp.issuer, clientId: 'entia', clientSecret: SECRET },
      elsewhere: { issuer: `http://127.0.0.1:${elsewhere.port}`, clientId: 'entia', clientSecret: SECRET },
    }),
    OIDC_REDIRECT_URIS: `${APP},http://app.localhost/other`,
    KEY_RECHECK_MS: String(RECHECK_MS),
  });
  tenant = await testTenant(api);
}, 60_000);

afterAll(async () => {
  await tenant?.close();
  await api?.close();
  await Promise.all([idp?.stop(), elsewhere?.stop()]);
});

/** The provider's authorization URL for a new sign-in (the API's 302). */
async function start(loginHint: string, db = tenant.db, provider = 'test'): Promise<URL> {
  const res = await request(api.app).get(`/api/auth/oidc/${provider}`).query({ db, redirect: APP, state: 'app-state', login_hint: loginHint });
  expect(res.status).toBe(302);
  expect(res.headers['cache-control']).toBe('no-store');
  return new URL(res.headers.location!);
}

/** The API's callback as the provider addresses it: where the API sends the app, as a URL. */
async function callback(at: URL): Promise<URL> {
  const res = await request(api.app).get(`${at.pathname}${at.search}`);
  expect(res.status).toBe(302);
  const back = new URL(res.headers.location!);
  expect(`${back.origin}${back.pathname}`).toBe(APP);
  return back;
}

/** The whole sign-in up to the app's return address, with the provider's authorization URL changed by `tamper`. */
async function signIn(loginHint: string, tamper: (authorization: URL) => void = () => undefined): Promise<URL> {
  const authorization = await start(loginHint);
  tamper(authorization);
  return callback(await followToRedirect(authorization.href, callbackOf('test')));
}

async function exchange(code: string | null) {
  return request(api.app).post('/api/auth/oidc/token').send({ code });
}

/** A successful sign-in's token and account. */
async function tokenFor(loginHint: string): Promise<{ token: string; person: string }> {
  const back = await signIn(loginHint);
  expect(back.searchParams.get('error')).toBeNull();
  expect(back.searchParams.get('state')).toBe('app-state');
  const res = await exchange(back.searchParams.get('entia_code'));
  expect(res.status).toBe(200);
  expect(res.body.accounts).toHaveLength(1);
  expect(res.body.accounts[0]._id).toBe(tenant.db);
  return { token: res.body.token, person: res.body.accounts[0].user._id };
}

const refusal = (back: URL) => ({ error: back.searchParams.get('error'), code: back.searchParams.get('entia_code'), state: back.searchParams.get('state') });

/** A person of the database with this identity, linked by the database's owner. */
async function personWithIdentity(name: string, sub: string): Promise<{ id: string; identityValue: string }> {
  const person = await tenant.newPerson(name);
  const res = await request(api.app)
    .post(`/api/${tenant.db}/entity/${person.id}`)
    .set('Authorization', tenant.owner.auth)
    .send([{ type: '_identity', string: `${idp.issuer} ${sub}` }]);
  expect(res.status).toBe(200);
  return { id: person.id, identityValue: writtenOf(res.body, '_identity')[0]!._id };
}

async function setDatabase(name: string, value: boolean): Promise<void> {
  const database = (await api.deps.store.registry.database(tenant.db))!.databaseEntity;
  const res = await request(api.app).post(`/api/${tenant.db}/entity/${database}`).set('Authorization', tenant.owner.auth).send([{ type: name, boolean: value }]);
  expect(res.status).toBe(200);
}

async function entity(id: string, auth = tenant.owner.auth) {
  return request(api.app).get(`/api/${tenant.db}/entity/${id}`).set('Authorization', auth);
}

describe('OpenID Connect sign-in', () => {
  it('signs a known identity in as its person: the code works once, the token reads as that person', async () => {
    const alice = await personWithIdentity('Alice', 'alice');
    const back = await signIn('alice');
    const code = back.searchParams.get('entia_code')!;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(back.searchParams.get('state')).toBe('app-state');

    const first = await exchange(code);
    expect(first.status).toBe(200);
    expect(first.body.accounts).toEqual([{ _id: tenant.db, name: tenant.db, user: { _id: alice.id, name: 'Alice' } }]);
    expect((await entity(alice.id, `Bearer ${first.body.token}`)).status).toBe(200);
    // One use only, and nothing else is a code.
    expect((await exchange(code)).status).toBe(401);
    expect((await exchange('not-a-code')).status).toBe(401);
  });

  it('refuses an identity no person has, and creates nobody', async () => {
    const before = await request(api.app).get(`/api/${tenant.db}/entity`).query({ '_type.reference': tenant.types.person }).set('Authorization', tenant.owner.auth);
    expect(refusal(await signIn('stranger'))).toEqual({ error: 'access_denied', code: null, state: 'app-state' });
    const after = await request(api.app).get(`/api/${tenant.db}/entity`).query({ '_type.reference': tenant.types.person }).set('Authorization', tenant.owner.auth);
    expect(after.body.count).toBe(before.body.count);
  });

  it('registers an unknown identity as a new person when the database allows it, once', async () => {
    await setDatabase('oidc_self_registration', true);
    try {
      const first = await tokenFor('carol');
      const again = await tokenFor('carol');
      expect(again.person).toBe(first.person);
      const person = (await entity(first.person)).body.entity;
      expect(person.name[0].string).toBe('Person carol');
      expect(person.email[0].string).toBe('carol@example.test');
      expect(person._identity.map((v: { string: string }) => v.string)).toEqual([`${idp.issuer} carol`]);
      // Owned by the database's owners, not by themselves: they cannot link identities of their choosing or lock the owners out.
      expect(person._owner.map((v: { reference: string }) => v.reference)).toEqual([tenant.owner.id]);
      const selfLink = await request(api.app)
        .post(`/api/${tenant.db}/entity/${first.person}`)
        .set('Authorization', `Bearer ${first.token}`)
        .send([{ type: '_identity', string: `${idp.issuer} someone-else` }]);
      expect(selfLink.status).toBe(403);
    } finally {
      await setDatabase('oidc_self_registration', false);
    }
  });

  it('signs in by verified e-mail when the database allows it, linking the identity; never by an unverified one', async () => {
    const dana = await tenant.create([{ type: '_type', reference: tenant.types.person }, { type: 'name', string: 'Dana' }, { type: 'email', string: 'DANA@Example.test' }]);
    const erin = await tenant.create([{ type: '_type', reference: tenant.types.person }, { type: 'name', string: 'Erin' }, { type: 'email', string: 'unverified-erin@example.test' }]);
    expect([dana.status, erin.status]).toEqual([201, 201]);
    expect(refusal(await signIn('dana')).error).toBe('access_denied');
    await setDatabase('oidc_email_match', true);
    try {
      expect((await tokenFor('dana')).person).toBe(dana.body._id);
      const linked = (await entity(dana.body._id)).body.entity._identity;
      expect(linked.map((v: { string: string }) => v.string)).toEqual([`${idp.issuer} dana`]);
      expect(refusal(await signIn('unverified-erin')).error).toBe('access_denied');
    } finally {
      await setDatabase('oidc_email_match', false);
    }
    // Linked: it signs in without the e-mail rule now.
    expect((await tokenFor('dana')).person).toBe(dana.body._id);
  });

  it('refuses a tampered or replayed state', async () => {
    await personWithIdentity('Fay', 'fay');
    const at = await followToRedirect((await start('fay')).href, callbackOf('test'));
    const forged = new URL(at);
    forged.searchParams.set('state', `${at.searchParams.get('state')}x`);
    expect((await request(api.app).get(`${forged.pathname}${forged.search}`)).status).toBe(400);
    // The genuine callback still works, once.
    expect((await callback(at)).searchParams.get('entia_code')).not.toBeNull();
    expect((await request(api.app).get(`${at.pathname}${at.search}`)).status).toBe(400);
  });

  it('refuses a tampered nonce or PKCE challenge, and a code presented with another sign-in’s state', async () => {
    await personWithIdentity('Gus', 'gus');
    expect(refusal(await signIn('gus', (url) => url.searchParams.set('nonce', 'chosen-by-an-attacker'))).error).toBe('access_denied');
    expect(refusal(await signIn('gus', (url) => url.searchParams.set('code_challenge', 'A'.repeat(43)))).error).toBe('access_denied');

    // The attacker's code, injected into the victim's sign-in: the victim's PKCE verifier does not match it.
    const attackers = await followToRedirect((await start('gus')).href, callbackOf('test'));
    const victims = await followToRedirect((await start('gus')).href, callbackOf('test'));
    const injected = new URL(victims);
    injected.searchParams.set('code', attackers.searchParams.get('code')!);
    expect(refusal(await callback(injected)).error).toBe('access_denied');
  });

  it('refuses another issuer: in the authorization response, and in the provider’s discovery', async () => {
    await personWithIdentity('Hal', 'hal');
    const at = await followToRedirect((await start('hal')).href, callbackOf('test'));
    at.searchParams.set('iss', 'https://issuer.example');
    expect(refusal(await callback(at)).error).toBe('access_denied');

    const res = await request(api.app).get('/api/auth/oidc/elsewhere').query({ db: tenant.db, redirect: APP });
    expect(res.status).toBe(503);
  });

  it.each([
    ['outside the allowlist', 'https://evil.example/steal'],
    ['a prefix of an allowed one', 'http://app.localhost/signed'],
    ['an allowed one with more after it', `${APP}/../../steal`],
    ['an allowed one with a query', `${APP}?next=https://evil.example`],
    ['no URL at all', 'javascript:alert(1)'],
  ])('refuses a redirect %s', async (_, redirect) => {
    const res = await request(api.app).get('/api/auth/oidc/test').query({ db: tenant.db, redirect });
    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });

  it('answers 404 for an unknown provider or database, 400 for malformed input', async () => {
    expect((await request(api.app).get('/api/auth/oidc/nobody').query({ db: tenant.db, redirect: APP })).status).toBe(404);
    expect((await request(api.app).get('/api/auth/oidc/test').query({ db: 'no_such_db', redirect: APP })).status).toBe(404);
    expect((await request(api.app).get('/api/auth/oidc/test').query({ db: '__proto__', redirect: APP })).status).toBe(400);
    expect((await request(api.app).get('/api/auth/oidc/test').query({ db: tenant.db, redirect: APP, login_hint: 'x'.repeat(10_000) })).status).toBe(400);
    expect((await request(api.app).get('/api/auth/oidc/test').query({ db: { $ne: 1 }, redirect: APP })).status).toBe(400);
    expect((await request(api.app).post('/api/auth/oidc/token').send({ code: { $ne: null } })).status).toBe(400);
    expect((await request(api.app).post('/api/auth/oidc/token').send({})).status).toBe(400);
    expect((await request(api.app).get('/api/auth/oidc/test/callback')).status).toBe(400);
  });

  it('a deleted identity signs in no more, and its tokens stop, even where its e-mail would match; its owners may link it again', async () => {
    const ivy = await personWithIdentity('Ivy', 'ivy');
    const withEmail = await request(api.app).post(`/api/${tenant.db}/entity/${ivy.id}`).set('Authorization', tenant.owner.auth).send([{ type: 'email', string: 'ivy@example.test' }]);
    expect(withEmail.status).toBe(200);
    const { token } = await tokenFor('ivy');
    expect((await entity(ivy.id, `Bearer ${token}`)).status).toBe(200);

    const removed = await request(api.app).delete(`/api/${tenant.db}/property/${ivy.identityValue}`).set('Authorization', tenant.owner.auth);
    expect(removed.status).toBe(200);
    expect(refusal(await signIn('ivy')).error).toBe('access_denied');
    // KEY_RECHECK_MS is 0 here: the next request looks the credential up again.
    expect((await entity(ivy.id, `Bearer ${token}`)).status).toBe(401);

    // Matching by e-mail, or registering, does not let a revoked identity back in…
    await setDatabase('oidc_email_match', true);
    await setDatabase('oidc_self_registration', true);
    try {
      expect(refusal(await signIn('ivy')).error).toBe('access_denied');
    } finally {
      await setDatabase('oidc_email_match', false);
      await setDatabase('oidc_self_registration', false);
    }
    expect((await entity(ivy.id)).body.entity._identity).toBeUndefined();
    // …an owner linking it again does.
    const relinked = await request(api.app).post(`/api/${tenant.db}/entity/${ivy.id}`).set('Authorization', tenant.owner.auth).send([{ type: '_identity', string: `${idp.issuer} ivy` }]);
    expect(relinked.status).toBe(200);
    expect((await tokenFor('ivy')).person).toBe(ivy.id);
  });

  it('one identity belongs to one person of a database', async () => {
    await personWithIdentity('Jo', 'jo');
    const other = await tenant.newPerson('Not Jo');
    const res = await request(api.app)
      .post(`/api/${tenant.db}/entity/${other.id}`)
      .set('Authorization', tenant.owner.auth)
      .send([{ type: '_identity', string: `${idp.issuer} jo` }]);
    expect(res.status).toBe(409);
    expect((await entity(other.id)).body.entity._identity).toBeUndefined();
  });

  it('the SDK starts a sign-in with a state of its own and completes it only with that state', async () => {
    const kim = await personWithIdentity('Kim', 'kim');
    const { url, state } = oidcSignInUrl({ baseUrl: tenant.baseUrl, provider: 'test', db: tenant.db, redirect: APP, loginHint: 'kim' });
    const started = await fetch(url, { redirect: 'manual' });
    expect(started.status).toBe(302);
    const back = await callback(await followToRedirect(started.headers.get('location')!, callbackOf('test')));
    expect(back.searchParams.get('state')).toBe(state);

    // Another page's state: refused before the code is spent.
    await expect(completeOidcSignIn({ baseUrl: tenant.baseUrl, url: back.href, expectedState: 'someone-elses' })).rejects.toThrow(OidcSignInError);
    const result = await completeOidcSignIn({ baseUrl: tenant.baseUrl, url: back.href, expectedState: state });
    expect(result.accounts[0]!.user._id).toBe(kim.id);
    await expect(completeOidcSignIn({ baseUrl: tenant.baseUrl, url: back.href, expectedState: state })).rejects.toMatchObject({ status: 401 });
  });
});
