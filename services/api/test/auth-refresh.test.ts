import jwt from 'jsonwebtoken';
import request from 'supertest';
import { TokenKeys, issueToken } from '../src/auth/tokens';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

/** GET /api/auth/refresh (issue 33 item 2): a fresh token for a valid one, as Entu's client asks an hour before expiry. */
describe('refreshing a token', () => {
  const DAY = 24 * 3600;
  let api: TestApi;
  let t: TestTenant;
  let keys: TokenKeys;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    keys = TokenKeys.fromConfig(api.deps.config);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const refresh = (authorization?: string, query = '') => {
    const req = request(api.app).get(`/api/auth/refresh${query}`);
    return authorization === undefined ? req : req.set('Authorization', authorization);
  };
  const claims = (token: string) => jwt.decode(token) as jwt.JwtPayload;
  /** A token of the owner's key, signed by the API's own secret as if at `issuedAt`, signed in at `authTime`. */
  const ownerToken = (issuedAt: number, authTime?: number) =>
    issueToken({ accounts: { [t.db]: t.owner.id }, kid: claims(t.owner.token).key, ...(authTime === undefined ? {} : { authTime }) }, keys.signing, issuedAt * 1000).token;
  const now = () => Math.floor(Date.now() / 1000);

  it("answers as GET /api/auth does, with a new 48 h token that works and keeps the sign-in's time", async () => {
    const signedInAt = now() - 2 * DAY;
    const old = ownerToken(now() - 47 * 3600, signedInAt);
    const res = await refresh(`Bearer ${old}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      accounts: [{ _id: t.db, name: t.db, user: { _id: t.owner.id, name: 'Owner' } }],
      user: { name: 'Owner' },
      token: expect.any(String),
      expires: expect.any(String),
    });
    const fresh = claims(res.body.token);
    expect(fresh.exp! - fresh.iat!).toBe(48 * 3600);
    expect(fresh.exp! * 1000).toBe(Date.parse(res.body.expires));
    expect(fresh.exp!).toBeGreaterThan(claims(old).exp!);
    expect(fresh.auth_time).toBe(signedInAt);
    expect((await request(api.app).get(`/api/${t.db}/entity/${t.owner.id}`).set('Authorization', `Bearer ${res.body.token}`)).status).toBe(200);
  });

  it('a token from before auth_time is dated by its iat', async () => {
    const iat = now() - 3600;
    const legacy = jwt.sign({ accounts: { [t.db]: t.owner.id }, key: claims(t.owner.token).key, iat }, keys.signing.key, {
      algorithm: 'HS256',
      audience: 'entia',
      expiresIn: 48 * 3600,
      keyid: keys.signing.kid,
    });
    const res = await refresh(`Bearer ${legacy}`);
    expect(res.status).toBe(200);
    expect(claims(res.body.token).auth_time).toBe(iat);
  });

  it.each([
    ['29 days', 29 * DAY, 200],
    ['31 days', 31 * DAY, 401],
  ])('a sign-in %s old: %s', async (_age, age, status) => {
    expect((await refresh(`Bearer ${ownerToken(now() - 3600, now() - age)}`)).status).toBe(status);
  });

  it.each([
    ['no Authorization header', () => undefined],
    ['an expired token', () => `Bearer ${ownerToken(now() - 49 * 3600)}`],
    ['a forged token', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id }, key: claims(t.owner.token).key }, 'f'.repeat(43), { algorithm: 'HS256', audience: 'entia', expiresIn: 3600, keyid: keys.signing.kid })}`],
    ['the API key itself', () => `Bearer ${t.owner.apiKey}`],
    ['a sign-in dated in the future', () => `Bearer ${ownerToken(now(), now() + 3600)}`],
    ['a token of a credential that never was', () => `Bearer ${issueToken({ accounts: { [t.db]: t.owner.id }, kid: 'f'.repeat(64) }, keys.signing).token}`],
  ])('%s → 401, nothing issued', async (_name, authorization) => {
    const res = await refresh(authorization());
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.token).toBeUndefined();
  });

  it('an unknown parameter → 400', async () => {
    expect((await refresh(t.owner.auth, '?db[$ne]=x')).status).toBe(400);
  });

  it("a revoked key's token is not refreshed, even while its other requests are still let through for KEY_RECHECK_MS", async () => {
    const p: Person = await t.newPerson('Leaving');
    await request(api.app).post(`/api/${t.db}/entity/${p.id}`).set('Authorization', t.owner.auth).send([{ type: '_viewer', reference: p.id }]).expect(200);
    expect((await refresh(p.auth)).status).toBe(200);
    const keyValue = (await request(api.app).get(`/api/${t.db}/entity/${p.id}`).set('Authorization', t.owner.auth)).body.entity._api_key[0]._id;
    await request(api.app).delete(`/api/${t.db}/property/${keyValue}`).set('Authorization', t.owner.auth).expect(200);
    const res = await refresh(p.auth);
    expect(res.status).toBe(401);
    expect(res.body.token).toBeUndefined();
  });

  it('many refreshes at once each give a working token', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(t.owner.auth)));
    expect(answers.map((res) => res.status)).toEqual(Array(20).fill(200));
    const probe = await request(api.app).get(`/api/${t.db}/entity/${t.owner.id}`).set('Authorization', `Bearer ${answers[19]!.body.token}`);
    expect(probe.status).toBe(200);
  });
});
