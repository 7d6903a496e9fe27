import jwt from 'jsonwebtoken';
import request from 'supertest';
import { eventually } from './eventually';
import { testApi, type TestApi } from './support';
import { signIn, testTenant, writtenOf, type Person, type TestTenant } from './tenant';

/** SPEC §6 (API keys, key exchange, JWT, anonymous reads) and interface §5. */

const PROBLEM = /^application\/problem\+json/;
const HOURS_48 = 48 * 3600;

function expectProblem(res: request.Response, status: number): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(PROBLEM);
  expect(res.body).toMatchObject({ type: expect.any(String), title: expect.any(String), status });
  expect(JSON.stringify(res.body)).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('authentication (SPEC §6)', () => {
  let api: TestApi;
  let a: TestTenant;
  let b: TestTenant;
  let noteA: string;
  let noteB: string;
  /** Entities of database A: private, domain-shared and public. */
  let privateA: string;
  let domainA: string;
  let publicA: string;
  /** A private entity of database B (owned by B's owner). */
  let privateB: string;

  beforeAll(async () => {
    api = testApi();
    [a, b] = await Promise.all([testTenant(api), testTenant(api)]);
    [noteA, noteB] = await Promise.all([a.defineType('note', [{ name: 'title', type: 'string' }]), b.defineType('note', [{ name: 'title', type: 'string' }])]);
    const note = async (t: TestTenant, type: string, title: string, sharing?: string) => {
      const res = await t.create([
        { type: '_type', reference: type },
        { type: 'title', string: title },
        ...(sharing ? [{ type: '_sharing', string: sharing }] : []),
      ]);
      if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body._id as string;
    };
    [privateA, domainA, publicA, privateB] = await Promise.all([
      note(a, noteA, 'private A'),
      note(a, noteA, 'domain A', 'domain'),
      note(a, noteA, 'public A', 'public'),
      note(b, noteB, 'private B'),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await api.close();
  });

  const exchange = (authorization?: string, query = '') => {
    const req = request(api.app).get(`/api/auth${query}`);
    return authorization === undefined ? req : req.set('Authorization', authorization);
  };
  const getEntity = (db: string, id: string, authorization?: string) => {
    const req = request(api.app).get(`/api/${db}/entity/${id}`);
    return authorization === undefined ? req : req.set('Authorization', authorization);
  };
  const count = (db: string) => api.deps.store.database(db).collection('entity').countDocuments();

  describe('GET /api/auth: the key exchange', () => {
    it('a valid key → 200 {accounts: [{_id, name, user: {_id, name}}], user: {name}, token, expires}', async () => {
      const res = await exchange(`Bearer ${a.owner.apiKey}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        accounts: [{ _id: a.db, name: a.db, user: { _id: a.owner.id, name: 'Owner' } }],
        user: { name: 'Owner' },
        token: expect.any(String),
        expires: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
      });
      // `expires` is the token's own expiry, as Entu's client reads it to refresh in time.
      expect(Date.parse(res.body.expires)).toBe((jwt.decode(res.body.token) as jwt.JwtPayload).exp! * 1000);
    });

    it('the token is a JWT valid 48 hours (exp − iat = 48 h, iat now), carrying the database and person it grants', async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await exchange(`Bearer ${a.owner.apiKey}`);
      const after = Math.ceil(Date.now() / 1000);
      const decoded = jwt.decode(res.body.token, { complete: true });
      expect(decoded).not.toBeNull();
      const payload = decoded!.payload as jwt.JwtPayload;
      expect(decoded!.header.alg).not.toBe('none');
      expect(payload.exp! - payload.iat!).toBe(HOURS_48);
      expect(payload.iat!).toBeGreaterThanOrEqual(before - 1);
      expect(payload.iat!).toBeLessThanOrEqual(after + 1);
      expect(JSON.stringify(payload)).toContain(a.db);
      expect(JSON.stringify(payload)).toContain(a.owner.id);
    });

    it.each([
      ['an unknown key', () => `Bearer ${'x'.repeat(43)}`],
      ['no Authorization header', () => undefined],
      ['a Basic header', () => `Basic ${Buffer.from('user:pass').toString('base64')}`],
      ['"Bearer" without a key', () => 'Bearer'],
      ['"Bearer " with an empty key', () => 'Bearer '],
      ['a key with spaces in it', () => 'Bearer abc def ghi jkl mno pqr'],
      ['a key in lower-case "bearer" with a stray suffix', () => 'bearer ' + 'y'.repeat(43) + ' extra'],
    ])('%s → 401 problem+json', async (_name, header) => {
      expectProblem(await exchange(header()), 401);
    });

    it('says what is wrong: a missing key is asked for, a malformed one is told it is no key', async () => {
      expect((await exchange(undefined)).body.detail).toContain('Send your API key as');
      const malformed = await exchange('Bearer abc def ghi jkl mno pqr');
      expect(malformed.body.detail).toContain('That is not an API key');
      expect(malformed.body.detail).not.toContain('abc');
      expect((await exchange(`Bearer ${a.owner.token}`)).body.detail).toContain('That is not an API key');
    });

    it('?db= naming the key\'s own database → 200; naming another database (existing or not) → 401', async () => {
      const key = a.owner.apiKey;
      const own = await exchange(`Bearer ${key}`, `?db=${a.db}`);
      expect(own.status).toBe(200);
      expect(own.body.accounts.map((account: { _id: string }) => account._id)).toEqual([a.db]);
      expectProblem(await exchange(`Bearer ${key}`, `?db=${b.db}`), 401);
      expectProblem(await exchange(`Bearer ${key}`, '?db=no_such_database'), 401);
    });
  });

  describe('the token on data routes', () => {
    it('works on its own database: reads and writes', async () => {
      expect((await getEntity(a.db, privateA, a.owner.auth)).status).toBe(200);
      const created = await a.create([{ type: '_type', reference: noteA }, { type: 'title', string: 'by token' }]);
      expect(created.status).toBe(201);
      expect((await getEntity(a.db, created.body._id, a.owner.auth)).body.entity.title[0].string).toBe('by token');
    });

    it('a token for database A used on database B → 403, and B is unchanged', async () => {
      const before = (await getEntity(b.db, privateB, b.owner.auth)).body;
      const entities = await count(b.db);
      const attempts = {
        get: await getEntity(b.db, privateB, a.owner.auth),
        create: await request(api.app)
          .post(`/api/${b.db}/entity`)
          .set('Authorization', a.owner.auth)
          .send([{ type: '_type', reference: noteB }, { type: 'title', string: 'intruder' }]),
        write: await request(api.app).post(`/api/${b.db}/entity/${privateB}`).set('Authorization', a.owner.auth).send([{ type: 'title', string: 'intruder' }]),
        deleteValue: await request(api.app).delete(`/api/${b.db}/property/${before.entity.title[0]._id}`).set('Authorization', a.owner.auth),
        deleteEntity: await request(api.app).delete(`/api/${b.db}/entity/${privateB}`).set('Authorization', a.owner.auth),
      };
      expect(Object.fromEntries(Object.entries(attempts).map(([name, res]) => [name, res.status]))).toEqual({
        get: 403,
        create: 403,
        write: 403,
        deleteValue: 403,
        deleteEntity: 403,
      });
      for (const res of Object.values(attempts)) expect(res.headers['content-type']).toMatch(PROBLEM);
      expect(await count(b.db)).toBe(entities);
      expect((await getEntity(b.db, privateB, b.owner.auth)).body).toEqual(before);
    });

    it('an API key sent as the Bearer token on a data route → 401 (read and write)', async () => {
      const key = a.owner.apiKey;
      expectProblem(await getEntity(a.db, privateA, `Bearer ${key}`), 401);
      expectProblem(await getEntity(a.db, publicA, `Bearer ${key}`), 401);
      const entities = await count(a.db);
      expectProblem(
        await request(api.app).post(`/api/${a.db}/entity`).set('Authorization', `Bearer ${key}`).send([{ type: '_type', reference: noteA }]),
        401,
      );
      expect(await count(a.db)).toBe(entities);
    });
  });

  describe('bad tokens are 401 on every route, never anonymous', () => {
    /** The claims and key id of a real token of A's owner: bad tokens differ from it in one respect only. */
    function realClaims(): { accounts: unknown; aud?: unknown; kid: string } {
      const decoded = jwt.decode(a.owner.token, { complete: true })!;
      const { iat: _iat, exp: _exp, ...claims } = decoded.payload as jwt.JwtPayload;
      return { ...(claims as { accounts: unknown; aud?: unknown }), kid: decoded.header.kid as string };
    }

    const badTokens: [string, () => string][] = [
      [
        'forged: signed with another secret',
        () => {
          const { kid, ...claims } = realClaims();
          return jwt.sign(claims, 'another-secret-of-at-least-32-characters!', { algorithm: 'HS256', keyid: kid, expiresIn: HOURS_48 });
        },
      ],
      [
        'expired: the right secret, exp in the past',
        () => {
          const { kid, ...claims } = realClaims();
          const now = Math.floor(Date.now() / 1000);
          return jwt.sign({ ...claims, iat: now - HOURS_48 - 60, exp: now - 60 }, api.deps.config.JWT_SECRET, { algorithm: 'HS256', keyid: kid });
        },
      ],
      [
        'alg none (unsigned)',
        () => {
          const { kid, ...claims } = realClaims();
          const now = Math.floor(Date.now() / 1000);
          return `${b64({ alg: 'none', typ: 'JWT', kid })}.${b64({ ...claims, iat: now, exp: now + HOURS_48 })}.`;
        },
      ],
      [
        'tampered: the real signature over changed claims',
        () => {
          const [header, , signature] = a.owner.token.split('.');
          const payload = jwt.decode(a.owner.token) as jwt.JwtPayload;
          return `${header}.${b64({ ...payload, exp: payload.exp! + 3600 })}.${signature}`;
        },
      ],
      ['malformed: not a JWT', () => 'not.a.jwt'],
      ['malformed: garbage', () => 'garbage'],
    ];

    it.each(badTokens)('%s → 401 on a public read, a private read, a property read and a write', async (_name, token) => {
      const auth = `Bearer ${token()}`;
      // Anonymous would see the public entity: a 401 here proves the token was not ignored.
      expectProblem(await getEntity(a.db, publicA, auth), 401);
      expectProblem(await getEntity(a.db, privateA, auth), 401);
      const publicTitle = (await getEntity(a.db, publicA)).body.entity.title[0]._id;
      expectProblem(await request(api.app).get(`/api/${a.db}/property/${publicTitle}`).set('Authorization', auth), 401);
      const before = (await getEntity(a.db, publicA, a.owner.auth)).body;
      expectProblem(await request(api.app).post(`/api/${a.db}/entity/${publicA}`).set('Authorization', auth).send([{ type: 'title', string: 'x' }]), 401);
      expect((await getEntity(a.db, publicA, a.owner.auth)).body).toEqual(before);
    });

    it('a non-Bearer Authorization header on a data route → 401, not anonymous', async () => {
      expectProblem(await getEntity(a.db, publicA, `Basic ${Buffer.from('a:b').toString('base64')}`), 401);
      expectProblem(await getEntity(a.db, publicA, 'Bearer'), 401);
    });

    it('a missing token on a write → 401, nothing written', async () => {
      const entities = await count(a.db);
      const before = (await getEntity(a.db, publicA, a.owner.auth)).body;
      const attempts = {
        create: await request(api.app).post(`/api/${a.db}/entity`).send([{ type: '_type', reference: noteA }]),
        write: await request(api.app).post(`/api/${a.db}/entity/${publicA}`).send([{ type: 'title', string: 'anon' }]),
        deleteValue: await request(api.app).delete(`/api/${a.db}/property/${before.entity.title[0]._id}`),
        deleteEntity: await request(api.app).delete(`/api/${a.db}/entity/${publicA}`),
      };
      for (const [name, res] of Object.entries(attempts)) {
        expect([name, res.status]).toEqual([name, 401]);
        expect(res.headers['content-type']).toMatch(PROBLEM);
      }
      expect(await count(a.db)).toBe(entities);
      expect((await getEntity(a.db, publicA, a.owner.auth)).body).toEqual(before);
    });
  });

  describe('anonymous reads', () => {
    it('a GET without Authorization sees public entities only (entity and property)', async () => {
      const pub = await getEntity(a.db, publicA);
      expect(pub.status).toBe(200);
      expect(pub.body.entity.title[0].string).toBe('public A');
      expect((await request(api.app).get(`/api/${a.db}/property/${pub.body.entity.title[0]._id}`)).status).toBe(200);
      for (const id of [domainA, privateA]) {
        expectProblem(await getEntity(a.db, id), 404);
        const title = (await getEntity(a.db, id, a.owner.auth)).body.entity.title[0]._id;
        expectProblem(await request(api.app).get(`/api/${a.db}/property/${title}`), 404);
      }
    });
  });
});

describe('revocation and new keys (SPEC §6: a token stops working soon after its key is revoked)', () => {
  const RECHECK_MS = 300;
  let api: TestApi;
  let t: TestTenant;

  beforeAll(async () => {
    api = testApi({ KEY_RECHECK_MS: String(RECHECK_MS) });
    t = await testTenant(api);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const self = (person: Person) => request(api.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', person.auth);
  const exchange = (key: string) => request(api.app).get('/api/auth').set('Authorization', `Bearer ${key}`);

  /** A person whose entity they can read (so a GET of it shows whether their token works). */
  async function person(name: string): Promise<{ person: Person; keyValueId: string }> {
    const p = await t.newPerson(name);
    await request(api.app).post(`/api/${t.db}/entity/${p.id}`).set('Authorization', t.owner.auth).send([{ type: '_viewer', reference: p.id }]).expect(200);
    const entity = (await request(api.app).get(`/api/${t.db}/entity/${p.id}`).set('Authorization', t.owner.auth)).body.entity;
    return { person: p, keyValueId: entity._api_key[0]._id };
  }

  it('deleting the _api_key value: /api/auth with that key is 401 at once, and its token is refused once the key is rechecked', async () => {
    const { person: p, keyValueId } = await person('Revoked');
    // The token works, and its key is now known to be live.
    expect((await self(p)).status).toBe(200);
    expect((await request(api.app).delete(`/api/${t.db}/property/${keyValueId}`).set('Authorization', t.owner.auth)).status).toBe(200);
    expectProblem(await exchange(p.apiKey), 401);

    // The key's liveness is asked again after KEY_RECHECK_MS; how long that takes on a loaded
    // machine is no behaviour of ours, so the wait is only a deadline, never an assertion.
    expectProblem(await eventually(() => self(p), (res) => res.status === 401, 10 * RECHECK_MS), 401);
    // ... on writes too, and for good.
    const write = await request(api.app).post(`/api/${t.db}/entity`).set('Authorization', p.auth).send([{ type: '_type', reference: t.types.person }]);
    expectProblem(write, 401);
    expectProblem(await exchange(p.apiKey), 401);
  });

  it('deleting the person entity revokes its keys too', async () => {
    const { person: p } = await person('Deleted');
    expect((await request(api.app).delete(`/api/${t.db}/entity/${p.id}`).set('Authorization', t.owner.auth)).status).toBe(200);
    expectProblem(await exchange(p.apiKey), 401);
  });

  it('a newly generated key works; the revoked one stays refused; other keys of the person are unaffected', async () => {
    const { person: p, keyValueId } = await person('Rotated');
    const second = await request(api.app).post(`/api/${t.db}/entity/${p.id}`).set('Authorization', t.owner.auth).send([{ type: '_api_key' }]);
    expect(second.status).toBe(200);
    const secondKey = writtenOf(second.body, '_api_key')[0]!.string as string;
    expect(secondKey).not.toBe(p.apiKey);

    await request(api.app).delete(`/api/${t.db}/property/${keyValueId}`).set('Authorization', t.owner.auth).expect(200);
    expectProblem(await exchange(p.apiKey), 401);

    const third = await request(api.app).post(`/api/${t.db}/entity/${p.id}`).set('Authorization', t.owner.auth).send([{ type: '_api_key' }]);
    expect(third.status).toBe(200);
    for (const key of [secondKey, writtenOf(third.body, '_api_key')[0]!.string as string]) {
      const res = await exchange(key);
      expect(res.status).toBe(200);
      expect(res.body.accounts).toEqual([{ _id: t.db, name: t.db, user: { _id: p.id, name: 'Rotated' } }]);
      const signedIn = await signIn(api, p.id, key);
      expect((await self(signedIn)).status).toBe(200);
    }
    expectProblem(await exchange(p.apiKey), 401);
  });
});

describe('rights follow people (issue 14): deleting a person revokes what that person made possible', () => {
  const RECHECK_MS = 300;
  let api: TestApi;
  let t: TestTenant;

  beforeAll(async () => {
    api = testApi({ KEY_RECHECK_MS: String(RECHECK_MS) });
    t = await testTenant(api);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const self = (person: Person) => request(api.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', person.auth);
  const exchange = (key: string) => request(api.app).get('/api/auth').set('Authorization', `Bearer ${key}`);
  const post = (id: string, values: object[], by: Person) => request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth).send(values);
  const remove = (id: string, by: Person) => request(api.app).delete(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth);
  /** A person created by `by`, with a key generated in the same request, signed in. */
  async function personBy(by: Person, name: string): Promise<Person> {
    const res = await t.create([{ type: '_type', reference: t.types.person }, { type: 'name', string: name }, { type: '_api_key' }], by);
    expect(res.status).toBe(201);
    return signIn(api, res.body._id, res.body.properties._api_key[0].string);
  }
  const newKey = async (holder: string, by: Person) => {
    const res = await post(holder, [{ type: '_api_key' }], by);
    expect(res.status).toBe(200);
    return writtenOf(res.body, '_api_key')[0]!.string as string;
  };
  /** The token is refused within a few rechecks (SPEC §6: soon after its key is revoked). */
  const refusedSoon = (person: Person) => eventually(() => self(person), (res) => res.status === 401, 10 * RECHECK_MS);

  it("a removed member's persons stop: their keys no longer exchange and their tokens no longer read", async () => {
    const member = await t.newPerson('Mallory');
    // The member makes a person of her own with a key; that person mints a key for itself and
    // makes a person of its own: three identities the member holds besides her own.
    const puppet = await personBy(member, 'Puppet');
    const puppetOwnKey = await newKey(puppet.id, puppet);
    const grandchild = await personBy(puppet, 'Grandchild');
    for (const person of [puppet, grandchild]) expect((await self(person)).status).toBe(200);
    const kept = await t.newPerson('Kept');

    expect((await remove(member.id, t.owner)).status).toBe(200);

    for (const key of [member.apiKey, puppet.apiKey, puppetOwnKey, grandchild.apiKey]) expectProblem(await exchange(key), 401);
    expectProblem(await refusedSoon(puppet), 401);
    expectProblem(await refusedSoon(grandchild), 401);
    // A person the database's owner set up is not affected.
    expect((await exchange(kept.apiKey)).status).toBe(200);
    expect((await self(kept)).status).toBe(200);
  });

  it('a key a member generated for a person they were made owner of stops when the member is deleted; the others stay', async () => {
    const member = await t.newPerson('Delegate');
    const colleague = await t.newPerson('Colleague');
    expect((await post(colleague.id, [{ type: '_owner', reference: member.id }], t.owner)).status).toBe(200);
    const minted = await newKey(colleague.id, member);
    const signedIn = await signIn(api, colleague.id, minted);
    expect((await self(signedIn)).status).toBe(200);

    expect((await remove(member.id, t.owner)).status).toBe(200);

    expectProblem(await exchange(minted), 401);
    expectProblem(await refusedSoon(signedIn), 401);
    expect((await exchange(colleague.apiKey)).status).toBe(200);
    expect((await self(colleague)).status).toBe(200);
  });

  it("what the database's owner set up outlives them: a successor owner and the persons they made keep working", async () => {
    const owner = await personBy(t.owner, 'Founder');
    const database = (await api.deps.store.registry.database(t.db))!.databaseEntity;
    expect((await post(database, [{ type: '_owner', reference: owner.id }], t.owner)).status).toBe(200);
    // The founder (now an owner of the database) makes a successor and a colleague.
    const successor = await personBy(owner, 'Successor');
    const colleague = await personBy(owner, 'Colleague');
    expect((await post(database, [{ type: '_owner', reference: successor.id }], owner)).status).toBe(200);

    expect((await remove(owner.id, t.owner)).status).toBe(200);

    expectProblem(await exchange(owner.apiKey), 401);
    for (const person of [successor, colleague]) {
      expect((await exchange(person.apiKey)).status).toBe(200);
      expect((await self(person)).status).toBe(200);
    }
  });

  it('a person holds at most 10 API keys: the eleventh is 400 and nothing is written', async () => {
    const person = await t.newPerson('Keyring');
    expect((await post(person.id, Array.from({ length: 9 }, () => ({ type: '_api_key' })), t.owner)).status).toBe(200);
    const keys = async () => (await request(api.app).get(`/api/${t.db}/entity/${person.id}`).set('Authorization', t.owner.auth)).body.entity._api_key;
    expect(await keys()).toHaveLength(10);

    for (const by of [t.owner, person]) {
      const res = await post(person.id, [{ type: '_api_key' }], by);
      expectProblem(res, 400);
      expect(res.body.errors[0]).toMatchObject({ pointer: '/0/type', message: expect.stringMatching(/at most 10/) });
    }
    const create = await t.create([{ type: '_type', reference: t.types.person }, ...Array.from({ length: 11 }, () => ({ type: '_api_key' }))]);
    expectProblem(create, 400);
    expect(await keys()).toHaveLength(10);
    // Deleting one (not the one the person signed in with, the first) makes room again.
    const last = (await keys())[9]._id;
    expect((await request(api.app).delete(`/api/${t.db}/property/${last}`).set('Authorization', t.owner.auth)).status).toBe(200);
    expect((await post(person.id, [{ type: '_api_key' }], person)).status).toBe(200);
  });
});
