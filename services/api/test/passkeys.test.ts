import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// The passkey routes (issue 20) against malformed, hostile and misplaced input, without a browser:
// every such request is a clear 4xx and stores nothing. What a real authenticator does is in
// passkeys-browser.test.ts.

const ORIGIN = 'http://localhost:5173';
const answer = (response: Record<string, unknown> = {}, id = 'AAAA') => ({ id, rawId: id, type: 'public-key', response });

describe('passkey routes: bad input', () => {
  let api: TestApi;
  let t: TestTenant;

  beforeAll(async () => {
    api = testApi({ WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_ORIGINS: ORIGIN });
    t = await testTenant(api);
  });

  afterAll(async () => {
    await t?.close();
    await api?.close();
  });

  const signIn = (body: unknown) => request(api.app).post('/api/auth/passkey').send(body as object);

  it('gives sign-in options for a database: a fresh challenge each time, no credentials named', async () => {
    const [a, b] = await Promise.all([1, 2].map(() => request(api.app).post('/api/auth/passkey/options').send({ db: t.db })));
    expect([a!.status, b!.status]).toEqual([200, 200]);
    expect(a!.body).toMatchObject({ rpId: 'localhost', userVerification: 'preferred' });
    expect(a!.body.allowCredentials ?? []).toEqual([]);
    expect(a!.body.challenge).not.toBe(b!.body.challenge);
  });

  it.each<[string, unknown, number]>([
    ['no body', undefined, 400],
    ['no database', {}, 400],
    ['an unknown database', { db: 'no_such_db' }, 404],
    ['a $-operator as the database', { db: { $ne: null } }, 400],
    ['__proto__ as the database', { db: '__proto__' }, 400],
    ['an extra field', { db: 'x', extra: 1 }, 400],
  ])('sign-in options with %s: %s', async (_, body, status) => {
    const res = await request(api.app).post('/api/auth/passkey/options').send(body as object);
    expect(res.status).toBe(status);
  });

  it.each<[string, () => unknown, number]>([
    ['an unknown credential', () => ({ db: t.db, response: answer({ clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' }) }), 401],
    ['garbage where the signed data goes', () => ({ db: t.db, response: answer({ clientDataJSON: '!!!', authenticatorData: 7, signature: null }) }), 401],
    ['__proto__ and constructor inside the answer', () => ({ db: t.db, response: answer(JSON.parse('{"__proto__": {"x": 1}, "constructor": {"prototype": 1}}')) }), 401],
    ['a $-operator as the credential id', () => ({ db: t.db, response: { ...answer(), id: { $ne: null } } }), 400],
    ['a credential id with other characters', () => ({ db: t.db, response: answer({}, 'a.b$c') }), 400],
    ['a huge credential id', () => ({ db: t.db, response: answer({}, 'A'.repeat(5000)) }), 400],
    ['another type', () => ({ db: t.db, response: { ...answer(), type: 'password' } }), 400],
    ['no answer', () => ({ db: t.db }), 400],
    ['an unknown database', () => ({ db: 'no_such_db', response: answer() }), 401],
  ])('sign-in with %s: %s', async (_, body, status) => {
    const res = await signIn(body());
    expect(res.status).toBe(status);
    expect(res.body.token).toBeUndefined();
  });

  it('refuses an oversized answer with 413', async () => {
    const res = await signIn({ db: t.db, response: answer({ clientDataJSON: 'A'.repeat(2 * 1024 * 1024) }) });
    expect(res.status).toBe(413);
  });

  it('registration needs a token, and refuses an answer to no challenge of this person’s', async () => {
    expect((await request(api.app).post(`/api/${t.db}/passkeys/options`).send({})).status).toBe(401);
    const options = await request(api.app).post(`/api/${t.db}/passkeys/options`).set('Authorization', t.owner.auth).send({});
    expect(options.status).toBe(200);
    expect(options.body).toMatchObject({ rp: { id: 'localhost', name: 'Entia' }, authenticatorSelection: { residentKey: 'required' }, attestation: 'none' });
    // The same algorithms on every Node (EdDSA, ES256, RS256): none the runtime verifies only experimentally.
    expect(options.body.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toEqual([-8, -7, -257]);

    const forged = await request(api.app)
      .post(`/api/${t.db}/passkeys`)
      .set('Authorization', t.owner.auth)
      .send({ response: answer({ clientDataJSON: Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.body.challenge, origin: ORIGIN })).toString('base64url'), attestationObject: 'AA' }) });
    expect(forged.status).toBe(400);
    const owner = await request(api.app).get(`/api/${t.db}/entity/${t.owner.id}`).set('Authorization', t.owner.auth);
    expect(owner.body.entity._passkey).toBeUndefined();
  });

  it('a passkey cannot be written as a value, not even by the person’s owner', async () => {
    const res = await request(api.app).post(`/api/${t.db}/entity/${t.owner.id}`).set('Authorization', t.owner.auth).send([{ type: '_passkey', string: 'AAAA' }]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/registration/);
  });

  it('answers 404 on every passkey route where passkeys are not configured', async () => {
    const off = testApi();
    try {
      const tenant = await testTenant(off);
      try {
        expect((await request(off.app).post('/api/auth/passkey/options').send({ db: tenant.db })).status).toBe(404);
        expect((await request(off.app).post('/api/auth/passkey').send({ db: tenant.db, response: answer() })).status).toBe(404);
        expect((await request(off.app).post(`/api/${tenant.db}/passkeys/options`).set('Authorization', tenant.owner.auth).send({})).status).toBe(404);
      } finally {
        await tenant.close();
      }
    } finally {
      await off.close();
    }
  });
});
