import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, writtenOf, type Person, type TestTenant } from './tenant';

const KEY = 'Idempotency-Key';

/** A port nothing listens on: taken from the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// SPEC §11 over real HTTP against the real app and stack: replays, mismatches, callers, hostile keys.
describe('Idempotency-Key on POST routes', () => {
  let api: TestApi;
  let tenant: TestTenant;
  let book: string;

  beforeAll(async () => {
    api = testApi();
    tenant = await testTenant(api);
    book = await tenant.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'tag', type: 'string', list: true },
    ]);
  });
  afterAll(async () => {
    await tenant.close();
    await api.close();
  });

  const bookValues = (title: string) => [
    { type: '_type', reference: book },
    { type: '_sharing', string: 'domain' },
    { type: 'title', string: title },
  ];
  const create = (body: unknown, key: string | undefined, by: Person = tenant.owner) => {
    const req = request(api.app).post(`/api/${tenant.db}/entity`).set('Authorization', by.auth);
    if (key !== undefined) req.set(KEY, key);
    return req.send(body as object);
  };
  /** Books titled `title` that the owner can see (all of them: they are shared with the domain). */
  const countTitled = async (title: string) => {
    const res = await request(api.app)
      .get(`/api/${tenant.db}/entity`)
      .query({ '_type.reference': book, 'title.string': title, limit: 0 })
      .set('Authorization', tenant.owner.auth);
    expect(res.status).toBe(200);
    return res.body.count as number;
  };

  it('a repeat with a JSON-equal body returns the first answer and writes nothing', async () => {
    const key = randomUUID();
    const first = await create(bookValues('Dune'), key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    // The same values with their keys in another order: JSON-equal, so the same request.
    const reordered = bookValues('Dune').map((value) => Object.fromEntries(Object.entries(value).reverse()));
    const second = await create(reordered, key);
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers.location).toBe(first.headers.location);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.body).toEqual(first.body);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await countTitled('Dune')).toBe(1);
  });

  it('a repeated value write adds the value once', async () => {
    const id = (await create(bookValues('Tagged'), undefined)).body._id as string;
    const key = randomUUID();
    const add = () => request(api.app).post(`/api/${tenant.db}/entity/${id}`).set('Authorization', tenant.owner.auth).set(KEY, key).send([{ type: 'tag', string: 'sf' }]);
    const first = await add();
    const second = await add();
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const entity = await request(api.app).get(`/api/${tenant.db}/entity/${id}`).set('Authorization', tenant.owner.auth);
    expect(entity.body.entity.tag.map((v: { string: string }) => v.string)).toEqual(['sf']);
  });

  it('the same key with another body, or on another path, is 422 and writes nothing', async () => {
    const key = randomUUID();
    const first = await create(bookValues('Emma'), key);
    expect(first.status).toBe(201);

    const other = await create(bookValues('Persuasion'), key);
    expect(other.status).toBe(422);
    expect(other.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(other.body).toMatchObject({ status: 422, type: 'urn:entia:problem:idempotency-key-reused' });

    const elsewhere = await request(api.app)
      .post(`/api/${tenant.db}/entity/${first.body._id}`)
      .set('Authorization', tenant.owner.auth)
      .set(KEY, key)
      .send([{ type: 'tag', string: 'classic' }]);
    expect(elsewhere.status).toBe(422);

    expect(await countTitled('Emma')).toBe(1);
    expect(await countTitled('Persuasion')).toBe(0);
    const entity = await request(api.app).get(`/api/${tenant.db}/entity/${first.body._id}`).set('Authorization', tenant.owner.auth);
    expect(entity.body.entity.tag).toBeUndefined();
  });

  it('two callers using the same key never see each other\'s answers', async () => {
    const other = await tenant.newPerson('Other');
    const key = randomUUID();
    const mine = await create(bookValues('Shared key'), key);
    const theirs = await create(bookValues('Shared key'), key, other);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body._id).not.toBe(mine.body._id);
    expect(theirs.body.properties._owner[0].reference).toBe(other.id);
    // And each one's repeat gets their own first answer.
    expect((await create(bookValues('Shared key'), key, other)).body._id).toBe(theirs.body._id);
    expect((await create(bookValues('Shared key'), key)).body._id).toBe(mine.body._id);
    expect(await countTitled('Shared key')).toBe(2);
  });

  it('keeps a 4xx answer: a repeat of a refused request is refused the same way', async () => {
    const key = randomUUID();
    const body = [...bookValues('Refused'), { type: 'nonsense', string: 'x' }];
    const first = await create(body, key);
    expect(first.status).toBe(400);
    const second = await create(body, key);
    expect(second.status).toBe(400);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('a generated API key is replayed to its caller but never stored in the clear', async () => {
    const person = await tenant.newPerson('Keyholder');
    const key = randomUUID();
    const generate = () =>
      request(api.app).post(`/api/${tenant.db}/entity/${person.id}`).set('Authorization', tenant.owner.auth).set(KEY, key).send([{ type: '_api_key' }]);
    const first = await generate();
    expect(first.status).toBe(200);
    const plaintext = writtenOf(first.body, '_api_key')[0]!.string as string;
    expect(plaintext).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    const second = await generate();
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    // The replayed key works, and it is the only new one: the repeat generated nothing.
    expect((await request(api.app).get('/api/auth').set('Authorization', `Bearer ${plaintext}`)).status).toBe(200);
    const stored = await request(api.app).get(`/api/${tenant.db}/entity/${person.id}`).set('Authorization', tenant.owner.auth);
    expect(stored.body.entity._api_key).toHaveLength(2);

    const prefix = api.deps.config.REDIS_PREFIX;
    const records = await api.deps.redis.keys(`${prefix}:idem:*`);
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      const value = (await api.deps.redis.getBuffer(record))!;
      expect(value.includes(Buffer.from(plaintext))).toBe(false);
      expect(value.includes(Buffer.from(key))).toBe(false);
    }
    expect(records.some((record) => record.includes(key))).toBe(false);
  });

  describe('hostile keys and bodies', () => {
    const cases: [string, string][] = [
      ['256 characters', 'k'.repeat(256)],
      ['non-ASCII', 'clé-ключ'],
      ['a control character', 'a\tb'],
      ['empty', ''],
    ];
    it.each(cases)('a key that is %s is 400 naming the header, and nothing is written', async (_name, key) => {
      // Node's client refuses characters above U+00FF in a header; send those as their UTF-8 bytes.
      const res = await create(bookValues(`Hostile ${_name}`), Buffer.from(key, 'utf8').toString('latin1'));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.errors).toEqual([{ parameter: KEY, message: expect.stringContaining('printable ASCII') }]);
      expect(await countTitled(`Hostile ${_name}`)).toBe(0);
    });

    it('a huge header is refused by the HTTP layer (431), never a 500', async () => {
      // Over the 16 KiB limit, within one read of the socket: a far larger request is cut off by a
      // reset while still being sent (Node 26 closes at once), and the client never reads the 431.
      const res = await create(bookValues('Huge'), 'k'.repeat(20_000));
      expect(res.status).toBe(431);
      expect(await countTitled('Huge')).toBe(0);
    });

    it('$-operators in the key or the body are plain data', async () => {
      const key = '$where {"$gt": ""} $ne';
      const body = [{ type: '_type', reference: book }, { type: 'title', string: { $gt: '' } }];
      const first = await create(body, key);
      expect(first.status).toBe(400);
      const second = await create(body, key);
      expect(second.status).toBe(400);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);

      const valid = await create(bookValues('$where'), '{"$set": 1}');
      expect(valid.status).toBe(201);
      expect((await create(bookValues('$where'), '{"$set": 1}')).body._id).toBe(valid.body._id);
      expect(await countTitled('$where')).toBe(1);
    });
  });

  describe('anonymous callers, and databases the token does not grant', () => {
    // A body the schema refuses: a 400 is an answer that is kept for signed-in callers.
    const refused = [{ type: 'title', string: { $gt: '' } }];

    it('an anonymous caller\'s key is not honoured: nobody\'s answer can be replayed to them', async () => {
      const key = randomUUID();
      const anonymous = () => request(api.app).post(`/api/${tenant.db}/entity`).set(KEY, key).send(refused);
      const first = await anonymous();
      const second = await anonymous();
      expect([first.status, second.status]).toEqual([400, 400]);
      expect(second.headers['idempotent-replayed']).toBeUndefined();
      // The same requests signed in: the first answer is kept and replayed.
      await create(refused, key);
      expect((await create(refused, key)).headers['idempotent-replayed']).toBe('true');
    });

    it('a signed-in caller\'s key holds where the token names no account (scoped to its API key)', async () => {
      const key = randomUUID();
      const elsewhere = () => request(api.app).post('/api/no_such_db/entity').set('Authorization', tenant.owner.auth).set(KEY, key).send(bookValues('x'));
      const first = await elsewhere();
      const second = await elsewhere();
      // No such database: 404 before the token's accounts are asked (tenancy resolves the name first).
      expect(first.status).toBe(404);
      expect(second.status).toBe(first.status);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
    });
  });

  it('publishes the header on every POST of the OpenAPI document but the read-only query', async () => {
    const res = await request(api.app).get('/api/openapi.json');
    for (const [path, operations] of Object.entries(res.body.paths as Record<string, Record<string, { parameters: { name: string; in: string }[] }>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const header = operation.parameters.find((p) => p.name === KEY);
        if (method === 'post' && path !== '/api/{db}/entity/query') expect({ path, header }).toMatchObject({ path, header: { in: 'header', schema: { maxLength: 255 } } });
        else expect({ path, method, header }).toEqual({ path, method, header: undefined });
      }
    }
  });

  it('without Redis, a keyed POST is a fast 503 and is not executed', async () => {
    const down = testApi({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    try {
      const started = Date.now();
      const res = await request(down.app).post(`/api/${tenant.db}/entity`).set('Authorization', tenant.owner.auth).set(KEY, randomUUID()).send(bookValues('No Redis'));
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(2500);
      expect(await countTitled('No Redis')).toBe(0);
    } finally {
      await down.close();
    }
  });
});
