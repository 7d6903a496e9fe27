import { FILTER_FIELDS, OPERATORS, OPERATORS_OF, OPERATOR_TABLE } from '@entia/domain';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

// What GET /api/openapi.json tells a client, checked against what the API does. The lint
// (openapi-lint.test.ts) checks the document's form; this file checks that it is true.

type Json = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  op: Json;
}

const operations = (doc: Json): Operation[] =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([method, op]) => ({ method, path, op })));

describe('the OpenAPI document', () => {
  let api: TestApi;
  let t: TestTenant;
  let doc: Json;
  let entity: string;
  let value: string;
  let bookType: string;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    bookType = await t.defineType('book', [{ name: 'title', type: 'string' }]);
    const created = await t.create([
      { type: '_type', reference: bookType },
      { type: 'title', string: 'Dune' },
      { type: '_sharing', string: 'public' },
    ]);
    entity = created.body._id;
    value = created.body.properties.title[0]._id;
    doc = (await request(api.app).get('/api/openapi.json')).body;
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  /** A request to `operation` whose only possible fault is its credentials. */
  function call({ method, path }: Operation): request.Test {
    const url = path
      .replace('{db}', t.db)
      .replace('/property/{id}', `/property/${value}`)
      .replace('/aggregate/{id}', `/aggregate/rebuild-${t.db}-${'0'.repeat(32)}`)
      .replace('{id}', entity);
    const req = (request(api.app) as unknown as Record<string, (url: string) => request.Test>)[method]!(url);
    if (path === '/api/{db}/entity' && method === 'post') return req.send([{ type: '_type', reference: bookType }, { type: 'title', string: 'x' }]);
    if (path === '/api/{db}/entity/{id}' && method === 'post') return req.send([{ type: 'title', string: 'y' }]);
    if (path === '/api/{db}/passkeys') return req.send({ response: { id: 'credential', rawId: 'credential', type: 'public-key', response: {} } });
    if (path === '/api/{db}/passkey' && method === 'post') return req.send({ id: 'credential', rawId: 'credential', type: 'public-key', response: {}, challengeToken: 'A'.repeat(43) });
    // A change stream that opened would never end: a list-only parameter, refused once the
    // credentials have been read, ends it with a 400.
    if (path === '/api/{db}/changes') return req.query({ sort: 'title.string' });
    return req;
  }

  it('declares the two bearer credentials: the token, and the API key it is exchanged for', () => {
    expect(doc.components.securitySchemes).toEqual({
      token: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: expect.stringContaining('GET /api/auth') }),
      apiKey: expect.objectContaining({ type: 'http', scheme: 'bearer', description: expect.stringContaining('_api_key') }),
    });
  });

  it('asks for nothing on probes and sign-ins, the API key on /api/auth, an optional token on reads, a token on writes', () => {
    const byId = Object.fromEntries(operations(doc).map(({ op }) => [op.operationId, op.security]));
    const none: Json[] = [];
    const apiKey = [{ apiKey: [] }];
    const optional = [{}, { token: [] }];
    const required = [{ token: [] }];
    expect(byId).toEqual({
      healthz: none,
      readyz: none,
      openapi: none,
      authenticate: apiKey,
      refreshToken: required,
      // People's sign-in (issue 20): their own credentials are in the body or at the provider.
      startOidcSignIn: none,
      startProviderSignIn: none,
      // Issue 33: passkeys at Entu's client's paths.
      passkeySignInOptionsForEntu: none,
      passkeyRegistrationOptionsForEntu: required,
      registerPasskeyForEntu: required,
      finishOidcSignIn: none,
      exchangeOidcCode: none,
      passkeySignInOptions: none,
      signInWithPasskey: none,
      passkeyRegistrationOptions: required,
      registerPasskey: required,
      listEntities: optional,
      getEntity: optional,
      getProperty: optional,
      getEntityThumbnail: optional,
      getPropertyThumbnail: optional,
      getEntityPending: optional,
      getEntityHistory: optional,
      getDatabaseSchema: optional,
      getWebhookDeliveries: optional,
      streamChanges: optional,
      queryEntities: optional,
      graphql: optional,
      graphqlGet: optional,
      createEntity: required,
      addValues: required,
      deleteEntity: required,
      deleteProperty: required,
      aggregateEntity: required,
      aggregateEntityGet: required,
      aggregateDatabase: required,
      getAggregation: required,
      duplicateEntity: required,
      changeStreamTicket: required,
      // Issue 32: the database home, for its members.
      getDatabaseStatistics: required,
    });
  });

  it('is true about credentials: every operation, called without one, is 401 exactly where the document asks for one', async () => {
    for (const operation of operations(doc)) {
      const res = await call(operation);
      // Required: a token, or the API key. `[{}, {token: []}]` (optional) and `[]` (none) admit anonymous callers.
      const needed = operation.op.security.length > 0 && !operation.op.security.some((requirement: Json) => Object.keys(requirement).length === 0);
      expect([operation.op.operationId, res.status === 401 ? 401 : 'not 401']).toEqual([operation.op.operationId, needed ? 401 : 'not 401']);
      // Whatever the answer, the document lists it.
      expect([operation.op.operationId, Object.keys(operation.op.responses)]).toEqual([operation.op.operationId, expect.arrayContaining([String(res.status)])]);
    }
  });

  it('is true about bad credentials: a forged token is 401 wherever a token is read, and ignored where none is', async () => {
    for (const operation of operations(doc)) {
      const res = await call(operation).set('Authorization', 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.forged');
      const readsCredentials = operation.op.security.length > 0;
      expect([operation.op.operationId, res.status === 401]).toEqual([operation.op.operationId, readsCredentials]);
    }
  });

  it('the API key opens /api/auth, as described', async () => {
    const res = await request(api.app).get('/api/auth').set('Authorization', `Bearer ${t.owner.apiKey}`);
    expect(res.status).toBe(200);
    expect(res.body.token.split('.')).toHaveLength(3);
  });

  it('describes every 4xx and 5xx answer as problem details, and every operation with input its 4xx answers', () => {
    for (const { op } of operations(doc)) {
      const errors = Object.entries(op.responses as Json).filter(([status]) => status === 'default' || Number(status) >= 400);
      for (const [status, response] of errors) {
        expect([op.operationId, status, response.content]).toEqual([op.operationId, status, { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }]);
      }
      const takesInput = op.parameters.length > 0 || op.security.length > 0;
      if (takesInput) expect([op.operationId, errors.some(([status]) => /^4\d\d$/.test(status))]).toEqual([op.operationId, true]);
    }
    expect(doc.components.schemas.Problem.required).toEqual(['type', 'title', 'status']);
  });

  it('answers errors as it describes them: application/problem+json', async () => {
    for (const path of [`/api/${t.db}/entity?limit=x`, `/api/${t.db}/entity/nope`, '/api/auth']) {
      const res = await request(api.app).get(path);
      expect([path, res.status >= 400, res.headers['content-type']]).toEqual([path, true, expect.stringMatching(/^application\/problem\+json/)]);
    }
  });

  describe('parameters', () => {
    const param = (path: string, method: string, name: string) =>
      (doc.paths[path][method].parameters as Json[]).find((p) => p.name === name)!;

    it('limit and skip are integers with their bounds', () => {
      expect(param('/api/{db}/entity', 'get', 'limit').schema).toMatchObject({ type: 'integer', minimum: 0, maximum: 1000, default: 100 });
      expect(param('/api/{db}/entity', 'get', 'skip').schema).toMatchObject({ type: 'integer', minimum: 0 });
    });

    it('limit and skip are read as integers: decimal digits within the bounds, else 400 naming them', async () => {
      const list = (query: string) => request(api.app).get(`/api/${t.db}/entity?${query}`).set('Authorization', t.owner.auth);
      expect((await list('limit=1&skip=0')).body).toMatchObject({ limit: 1, skip: 0 });
      for (const [query, parameter] of [
        ['limit=x', 'limit'],
        ['limit=1e3', 'limit'],
        ['limit=%201', 'limit'],
        ['limit=1001', 'limit'],
        ['skip=-1', 'skip'],
        ['skip=0x10', 'skip'],
      ]) {
        const res = await list(query!);
        expect([query, res.status, res.body.errors?.map((e: Json) => e.parameter)]).toEqual([query, 400, [parameter]]);
      }
    });

    it('db and ids have patterns; a path outside them names nothing (404)', async () => {
      for (const [path, method] of [
        ['/api/{db}/entity', 'get'],
        ['/api/{db}/entity/{id}', 'post'],
        ['/api/{db}/property/{id}', 'delete'],
      ] as const) {
        const db = param(path, method, 'db');
        expect([path, db.in, db.required, new RegExp(db.schema.pattern).test(t.db)]).toEqual([path, 'path', true, true]);
        for (const reserved of ['jobs', 'auth', 'admin', 'ab', 'Demo']) expect([reserved, new RegExp(db.schema.pattern).test(reserved)]).toEqual([reserved, false]);
      }
      expect(param('/api/{db}/entity/{id}', 'get', 'id').schema.pattern).toBe('^[0-9a-f]{24}$');
      expect(param('/api/{db}/property/{id}', 'get', 'id').schema.pattern).toBe('^[0-9a-f]{24}$');
      for (const path of [`/api/${t.db}/entity/${entity.toUpperCase()}`, `/api/${t.db}/aggregate/${'x'.repeat(300)}`, `/api/Demo/entity`]) {
        const res = await request(api.app).get(path).set('Authorization', t.owner.auth);
        expect([path, res.status, res.headers['content-type']]).toEqual([path, 404, expect.stringMatching(/^application\/problem\+json/)]);
      }
    });

    it('describes the filters: `<property>.<type>[.<operator>]`, their key pattern and every operator', () => {
      const filters = param('/api/{db}/entity', 'get', 'filters');
      expect(filters).toMatchObject({ in: 'query', style: 'form', explode: true, required: false });
      expect(filters.schema.type).toBe('object');
      expect(filters.schema.additionalProperties).toMatchObject({ type: 'string' });
      const key = new RegExp(filters.schema.propertyNames.pattern);
      for (const good of ['title.string', 'pages.number.gte', '_type.reference', 'name.string.regex', 'file.filesize.lt', 'tag.string.in', 'x.date.exists']) {
        expect([good, key.test(good)]).toEqual([good, true]);
      }
      for (const bad of ['title', 'title.text', 'title.string.like', '__proto__.string', 'a.string.gt.x']) expect([bad, key.test(bad)]).toEqual([bad, false]);
      expect(filters.description).toContain('<property>.<type>[.<operator>]');
      for (const word of ['`ne`', '`gt`', '`gte`', '`lt`', '`lte`', '`in`', '`exists`', '`regex`', 'AND', 'ANY value']) expect(filters.description).toContain(word);
    });

    it('publishes the operator table the parser reads (`x-operators`): each operator, its operand and the value fields that take it', () => {
      const operators = param('/api/{db}/entity', 'get', 'filters')['x-operators'] as Json;
      expect(Object.keys(operators)).toEqual([...OPERATORS]);
      for (const op of OPERATORS) expect(operators[op]).toEqual({ operand: OPERATOR_TABLE[op].operand, description: OPERATOR_TABLE[op].description, fields: expect.any(Array) });
      for (const field of FILTER_FIELDS) {
        expect([field, OPERATORS.filter((op) => operators[op].fields.includes(field))]).toEqual([field, OPERATORS.filter((op) => OPERATORS_OF[field].includes(op))]);
      }
      expect(operators.regex.fields).toEqual(expect.arrayContaining(['string', 'filename']));
      expect(operators.gt.fields).not.toContain('string');
    });
  });

  it('has no /metrics: they are on METRICS_PORT, and the API port answers 404 for them', async () => {
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
    const res = await request(api.app).get('/metrics');
    expect(res.status).toBe(404);
    expect(res.text).not.toContain('http_requests_total');
  });
});
