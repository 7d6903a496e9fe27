import jwt from 'jsonwebtoken';
import request from 'supertest';
import { api, asOwner, bookType, describeAfterwards, entityPath, expectFieldError, expectNoNewEntity, expectProblem, foreign, other, propertyPath, t, target, untouched, useHostileFixture, type Watched } from './fixture';

/** Hostile input (SPEC §2, §3, §7, §11): authentication confusion. The shared setup and guards are in `fixture.ts`. */
describe('hostile input: authentication confusion', () => {
  useHostileFixture();

  // --- authentication confusion ------------------------------------------------------------

  describe('authentication confusion', () => {
    const kid = () => (jwt.decode(t.owner.token, { complete: true }) as { header: { kid: string } }).header.kid;
    const secret = () => api.deps.config.JWT_SECRET;
    const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

    const headers: [string, () => string][] = [
      ['the API key itself as the token', () => `Bearer ${t.owner.apiKey}`],
      ['garbage', () => 'Bearer garbage'],
      ['three garbage segments', () => 'Bearer a.b.c'],
      ['an empty bearer', () => 'Bearer '],
      ['an empty header', () => ''],
      ['Basic credentials', () => `Basic ${Buffer.from('owner:password').toString('base64')}`],
      ['the token twice', () => `Bearer ${t.owner.token} ${t.owner.token}`],
      ['the token without a scheme', () => t.owner.token],
      ['alg none', () => `Bearer ${b64({ alg: 'none', typ: 'JWT', kid: kid() })}.${b64({ accounts: { [t.db]: t.owner.id }, aud: 'entia' })}.`],
      ['a wrong secret', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, 'not-the-secret-0123456789abcdef', { audience: 'entia', expiresIn: 3600, keyid: kid() })}`],
      ['an expired token', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id }, exp: Math.floor(Date.now() / 1000) - 60 }, secret(), { audience: 'entia', keyid: kid() })}`],
      ['another audience', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, secret(), { audience: 'other', expiresIn: 3600, keyid: kid() })}`],
      ['HS512', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, secret(), { algorithm: 'HS512', audience: 'entia', expiresIn: 3600, keyid: kid() })}`],
      ['an unknown key id', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, secret(), { audience: 'entia', expiresIn: 3600, keyid: 'f'.repeat(64) })}`],
      ['no key id', () => `Bearer ${jwt.sign({ accounts: { [t.db]: t.owner.id } }, secret(), { audience: 'entia', expiresIn: 3600 })}`],
      ['accounts that are not strings', () => `Bearer ${jwt.sign({ accounts: { [t.db]: { $ne: null } } }, secret(), { audience: 'entia', expiresIn: 3600, keyid: kid() })}`],
      ['a 5000-character token', () => `Bearer ${'a'.repeat(5000)}`],
    ];

    it.each(headers)('Authorization with %s: 401 on GET, POST and DELETE', async (_name, header) => {
      const value = header();
      for (const res of [
        await untouched(() => request(api.app).get(entityPath(target._id)).set('Authorization', value)),
        await untouched(() => request(api.app).post(entityPath(target._id)).set('Authorization', value).send([{ type: 'title', string: 'x' }])),
        await untouched(() => request(api.app).post(`/api/${t.db}/entity`).set('Authorization', value).send([{ type: '_type', reference: bookType }])),
        await untouched(() => request(api.app).delete(entityPath(target._id)).set('Authorization', value)),
      ]) {
        expectProblem(res, 401);
        expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
      }
      await expectNoNewEntity(t);
    });

    it('a JWT for database A used on database B: 403 on every route, nothing written', async () => {
      const value = foreign.properties.title![0]!._id;
      const watch: Watched[] = ['foreign'];
      for (const res of [
        await untouched(() => asOwner(request(api.app).get(entityPath(foreign._id, other.db))), watch),
        await untouched(() => asOwner(request(api.app).post(entityPath(foreign._id, other.db))).send([{ type: 'title', string: 'x' }]), watch),
        await untouched(() => asOwner(request(api.app).post(`/api/${other.db}/entity`)).send([{ type: '_type', reference: other.types.entity }, { type: 'name', string: 'x' }]), watch),
        await untouched(() => asOwner(request(api.app).delete(entityPath(foreign._id, other.db))), watch),
        await untouched(() => asOwner(request(api.app).get(propertyPath(value, other.db))), watch),
        await untouched(() => asOwner(request(api.app).delete(propertyPath(value, other.db))), watch),
      ]) {
        expectProblem(res, 403);
      }
      await expectNoNewEntity(other);
    });

    it('an API key of database A exchanged with ?db=B: 401', async () => {
      const res = await request(api.app).get(`/api/auth?db=${other.db}`).set('Authorization', `Bearer ${t.owner.apiKey}`);
      expectProblem(res, 401);
    });

    it.each([
      ['a JWT instead of an API key', () => `Bearer ${t.owner.token}`],
      ['garbage', () => 'Bearer !!!'],
      ['no scheme', () => t.owner.apiKey],
    ])('GET /api/auth with %s: 401', async (_name, header) => {
      expectProblem(await request(api.app).get('/api/auth').set('Authorization', header()), 401);
    });

    it('GET /api/auth with malformed query: 400 naming it', async () => {
      const res = await request(api.app).get('/api/auth?db=$where').set('Authorization', `Bearer ${t.owner.apiKey}`);
      expectFieldError(res, { parameter: 'db' });
    });
  });

  describeAfterwards();
});
