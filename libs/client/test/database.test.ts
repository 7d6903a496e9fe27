import { EntiaClient, EntiaError, MAX_GET_PATH, valuesOf, type Entity, type Value } from '@entia/client';
import { Peer, jwt, problem } from './support/peer';

const ID = '65f0a1b2c3d4e5f6a7b8c9d0';
const VALUE_ID = '65f0a1b2c3d4e5f6a7b8c9d1';
const created = { at: '2030-01-01T00:00:00.000Z', by: ID };
const value = (fields: Partial<Value>): Value => ({ _id: VALUE_ID, type: 'name', created, ...fields });

describe('EntiaDatabase helpers against a real HTTP peer', () => {
  const peer = new Peer();
  const token = jwt({ exp: Math.floor(Date.now() / 1000) + 48 * 3600 });
  let reply: { status: number; body?: unknown };
  let waits: number[];
  let client: EntiaClient;

  beforeAll(async () => {
    await peer.start();
    client = new EntiaClient({
      baseUrl: `${peer.baseUrl}/`,
      apiKey: 'key-key-key-key-key-key',
      db: 'acme',
      retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
  });
  afterAll(() => peer.stop());
  beforeEach(() => {
    peer.reset();
    waits = [];
    reply = { status: 200, body: {} };
    peer.answer = (request) => (request.path === '/api/auth' ? { status: 200, body: { accounts: [], token } } : reply);
  });

  /** The one call the helper made, after the key exchange. */
  const call = () => {
    const calls = peer.seen.filter((s) => s.path !== '/api/auth');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.authorization).toBe(`Bearer ${token}`);
    return calls[0]!;
  };

  it('createEntity POSTs the values to /api/{db}/entity and returns {_id, properties}', async () => {
    const body = { _id: ID, properties: { _type: [value({ type: '_type', reference: ID })], name: [value({ string: 'Ann' })] } };
    reply = { status: 201, body };
    const values = [{ type: '_type', reference: ID }, { type: 'name', string: 'Ann' }];
    await expect(client.db().createEntity(values)).resolves.toEqual(body);
    expect(call()).toMatchObject({ method: 'POST', url: '/api/acme/entity', contentType: 'application/json', body: values });
  });

  it('getEntity GETs /api/{db}/entity/{id} with props as a comma list', async () => {
    const entity: Entity = { _id: ID, name: [value({ string: 'Ann' })] };
    reply = { status: 200, body: { entity } };
    const result = await client.db('other_db').getEntity(ID, { props: ['name', '_created'] });
    expect(result).toEqual({ entity });
    expect(valuesOf(result.entity, 'name').map((v) => v.string)).toEqual(['Ann']);
    expect(valuesOf(result.entity, 'missing')).toEqual([]);
    expect(valuesOf(result.entity, '_id')).toEqual([]);
    expect(call()).toMatchObject({ method: 'GET', url: `/api/other_db/entity/${ID}?props=name,_created`, body: undefined, contentType: undefined });
  });

  it('getEntity without props sends no query', async () => {
    await client.db().getEntity(ID);
    expect(call().url).toBe(`/api/acme/entity/${ID}`);
  });

  it('addValues POSTs to /api/{db}/entity/{id} and returns the written values as one array', async () => {
    const body = { _id: ID, properties: [value({ string: 'Bo' })] };
    reply = { status: 200, body };
    const values = [{ type: 'name', _id: VALUE_ID, string: 'Bo' }];
    await expect(client.db().addValues(ID, values)).resolves.toEqual(body);
    expect(call()).toMatchObject({ method: 'POST', url: `/api/acme/entity/${ID}`, body: values });
  });

  it('deleteEntity DELETEs /api/{db}/entity/{id}', async () => {
    reply = { status: 200, body: { deleted: true } };
    await expect(client.db().deleteEntity(ID)).resolves.toEqual({ deleted: true });
    expect(call()).toMatchObject({ method: 'DELETE', url: `/api/acme/entity/${ID}`, body: undefined });
  });

  it('getProperty GETs /api/{db}/property/{id}', async () => {
    const file = value({ type: 'photo', filename: 'a.png', filesize: 3, filetype: 'image/png', url: 'https://s3/x?sig' });
    reply = { status: 200, body: file };
    await expect(client.db().getProperty(VALUE_ID)).resolves.toEqual(file);
    expect(call()).toMatchObject({ method: 'GET', url: `/api/acme/property/${VALUE_ID}` });
  });

  it('deleteProperty DELETEs /api/{db}/property/{id}', async () => {
    reply = { status: 200, body: { deleted: true } };
    await expect(client.db().deleteProperty(VALUE_ID)).resolves.toEqual({ deleted: true });
    expect(call()).toMatchObject({ method: 'DELETE', url: `/api/acme/property/${VALUE_ID}` });
  });

  it('aggregateEntity POSTs to /api/{db}/entity/{id}/aggregate', async () => {
    reply = { status: 200, body: { entity: { _id: ID } } };
    await expect(client.db().aggregateEntity(ID)).resolves.toEqual({ entity: { _id: ID } });
    expect(call()).toMatchObject({ method: 'POST', url: `/api/acme/entity/${ID}/aggregate` });
  });

  it('listEntities passes filter keys verbatim, encodes values, joins arrays with commas, drops undefined', async () => {
    const body = { entities: [{ _id: ID }], count: 41, limit: 10, skip: 20 };
    reply = { status: 200, body };
    const result = await client.db().listEntities({
      'name.string.regex': '/^Ann &a+b/i',
      'age.number.gte': 18,
      'active.boolean': true,
      'tag.string.in': ['a b', 'c&d', 'é'],
      sort: ['-age.number', 'name.string'],
      limit: 10,
      skip: 20,
      q: undefined,
    });
    expect(result).toEqual(body);
    const seen = call();
    expect(seen.method).toBe('GET');
    expect(seen.url).toBe(
      '/api/acme/entity?name.string.regex=%2F%5EAnn%20%26a%2Bb%2Fi&age.number.gte=18&active.boolean=true' +
        '&tag.string.in=a%20b,c%26d,%C3%A9&sort=-age.number,name.string&limit=10&skip=20',
    );
    // What a server decodes: exactly the values given.
    expect([...seen.query]).toEqual([
      ['name.string.regex', '/^Ann &a+b/i'],
      ['age.number.gte', '18'],
      ['active.boolean', 'true'],
      ['tag.string.in', 'a b,c&d,é'],
      ['sort', '-age.number,name.string'],
      ['limit', '10'],
      ['skip', '20'],
    ]);
  });

  it('listEntities without a query sends none', async () => {
    await client.db().listEntities();
    expect(call().url).toBe('/api/acme/entity');
  });

  it('queryEntities POSTs the same parameters to /api/{db}/entity/query as strings', async () => {
    const body = { entities: [{ _id: ID }], count: 1, limit: 10, skip: 0 };
    reply = { status: 200, body };
    const query = { 'tag.string.in': ['a b', 'c&d'], 'age.number.gte': 18, 'active.boolean': true, sort: ['-age.number', 'name.string'], limit: 10, q: undefined };
    await expect(client.db().queryEntities(query)).resolves.toEqual(body);
    expect(call()).toMatchObject({
      method: 'POST',
      url: '/api/acme/entity/query',
      contentType: 'application/json',
      body: { 'tag.string.in': 'a b,c&d', 'age.number.gte': '18', 'active.boolean': 'true', sort: '-age.number,name.string', limit: '10' },
    });
  });

  it(`listEntities sends a query whose URL would pass ${MAX_GET_PATH} characters as POST /entity/query`, async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i.toString(16).padStart(24, '0'));
    await client.db().listEntities({ '_type.reference.in': ids, limit: 5 });
    expect(call()).toMatchObject({ method: 'POST', url: '/api/acme/entity/query', body: { '_type.reference.in': ids.join(','), limit: '5' } });
  });

  it('iterateEntities pages by cursor with count=none: skip only on the first page, then after = the previous next, until a page has none', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e'].map((c) => c.repeat(24));
    peer.answer = (request) => {
      if (request.path === '/api/auth') return { status: 200, body: { accounts: [], token } };
      const start = request.query.get('after') === null ? Number(request.query.get('skip') ?? 0) : ids.indexOf(request.query.get('after')!.slice(5)) + 1;
      const entities = ids.slice(start, start + 2).map((_id) => ({ _id }));
      const more = start + 2 < ids.length;
      return { status: 200, body: { entities, limit: 2, skip: 0, ...(more ? { next: `next-${entities[1]!._id}` } : {}) } };
    };
    const seen: string[] = [];
    for await (const entity of client.db().iterateEntities({ 'name.string': 'x', limit: 2, skip: 1, count: 'exact' })) seen.push(entity._id);
    expect(seen).toEqual(ids.slice(1));
    const queries = peer.seen.filter((s) => s.path !== '/api/auth').map((s) => [...s.query]);
    expect(queries).toEqual([
      [['name.string', 'x'], ['limit', '2'], ['skip', '1'], ['count', 'none']],
      [['name.string', 'x'], ['limit', '2'], ['count', 'none'], ['after', `next-${ids[2]}`]],
    ]);
  });

  it('queryEntities is a read: a 503 is retried', async () => {
    let answers = 0;
    peer.answer = (request) => {
      if (request.path === '/api/auth') return { status: 200, body: { accounts: [], token } };
      return answers++ === 0 ? { status: 503, body: problem(503, 'busy') } : { status: 200, body: { entities: [], count: 0, limit: 100, skip: 0 } };
    };
    await expect(client.db().queryEntities({ 'name.string': 'x' })).resolves.toMatchObject({ count: 0 });
    expect(answers).toBe(2);
  });

  it('generateApiKey POSTs [{type: "_api_key"}] to the person and returns the plaintext key', async () => {
    reply = { status: 200, body: { _id: ID, properties: [value({ type: '_api_key', string: 'plaintext-key' })] } };
    await expect(client.db().generateApiKey(ID)).resolves.toBe('plaintext-key');
    expect(call()).toMatchObject({ method: 'POST', url: `/api/acme/entity/${ID}`, body: [{ type: '_api_key' }] });
  });

  it.each([
    ['no values', []],
    ['other values only', [value({ type: 'name', string: 'Bo' })]],
    // A server from before the answer became an array (SPEC §7a).
    ['values by property name', { _api_key: [value({ type: '_api_key', string: 'plaintext-key' })] }],
  ])('generateApiKey refuses an answer that carries no key: %s', async (_case, properties) => {
    reply = { status: 200, body: { _id: ID, properties } };
    await expect(client.db().generateApiKey(ID)).rejects.toThrow(/without the generated key/);
  });

  it('encodes the database and ids as single path segments', async () => {
    await client.db('a/b').getEntity('x/../y?z#');
    await client.db().deleteProperty('p q');
    expect(peer.seen.filter((s) => s.path !== '/api/auth').map((s) => s.url)).toEqual([
      '/api/a%2Fb/entity/x%2F..%2Fy%3Fz%23',
      '/api/acme/property/p%20q',
    ]);
  });

  it('db() without a name and without a constructor db is an error', () => {
    expect(() => new EntiaClient({ baseUrl: peer.baseUrl }).db()).toThrow(/name a database/);
    expect(client.db().name).toBe('acme');
  });

  it('a 4xx is an EntiaError with the problem body, not retried', async () => {
    reply = { status: 404, body: problem(404, `No entity ${ID}.`) };
    const error = await client.db().getEntity(ID).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EntiaError);
    expect(error).toMatchObject({ status: 404, message: `No entity ${ID}.`, problem: { type: 'urn:entia:404', status: 404 } });
    call();
    expect(waits).toEqual([]);
  });

  it.each([400, 403, 409, 413, 415])('%i is not retried', async (status) => {
    reply = { status, body: problem(status, 'no') };
    await expect(client.db().addValues(ID, [{ type: 'name', string: 'x' }])).rejects.toMatchObject({ status });
    call();
  });

  it('a 5xx is retried with backoff and the call then succeeds', async () => {
    let failures = 2;
    peer.answer = (request) => {
      if (request.path === '/api/auth') return { status: 200, body: { accounts: [], token } };
      return failures-- > 0 ? { status: 502, body: problem(502, 'bad gateway') } : { status: 200, body: { deleted: true } };
    };
    await expect(client.db().deleteProperty(VALUE_ID)).resolves.toEqual({ deleted: true });
    expect(peer.to(`/api/acme/property/${VALUE_ID}`)).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it('a 429 waits for Retry-After, then succeeds', async () => {
    let limited = true;
    peer.answer = (request) => {
      if (request.path === '/api/auth') return { status: 200, body: { accounts: [], token } };
      if (!limited) return { status: 200, body: { entities: [], count: 0, limit: 100, skip: 0 } };
      limited = false;
      return { status: 429, body: problem(429, 'slow down'), headers: { 'Retry-After': '2' } };
    };
    await expect(client.db().listEntities({ q: 'ann' })).resolves.toMatchObject({ count: 0 });
    expect(waits).toEqual([2000]);
  });

  it('an empty 2xx body resolves to undefined', async () => {
    reply = { status: 204 };
    await expect(client.request('DELETE', '/x')).resolves.toBeUndefined();
  });
});
