import { EntiaClient, valuesOf } from '@entia/client';
import { MAX_FIELD_ERRORS, MAX_FORMULAS_PER_TYPE } from '@entia/domain';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * Bounded answers and inputs (issue 14): an error answer stays small whatever the request held, a
 * query too long for a URL can be sent in a body (POST /api/{db}/entity/query) under the same
 * rules and rights as GET, and a type holds a bounded number of formulas.
 */

const randomId = () => randomBytes(12).toString('hex');

function expectProblem(res: request.Response, status: number): void {
  expect({ status: res.status, contentType: res.headers['content-type'] }).toEqual({ status, contentType: expect.stringMatching(/^application\/problem\+json/) });
  expect(res.body).toMatchObject({ status, type: expect.stringMatching(/^urn:entia:problem:/), title: expect.any(String) });
}

describe('bounds (issue 14)', () => {
  let api: TestApi;
  let t: TestTenant;
  let other: TestTenant;
  let book: string;
  const books = new Map<string, string>();

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    [t, other] = await Promise.all([testTenant(api), testTenant(api)]);
    book = await t.defineType('book', [
      { name: 'title', type: 'string', search: true },
      { name: 'pages', type: 'number' },
    ]);
    for (const [title, pages, sharing] of [
      ['Dune', 412, 'public'],
      ['Emma', 474, 'public'],
      ['Ulysses', 730, 'private'],
    ] as const) {
      const res = await t.create([
        { type: '_type', reference: book },
        { type: 'title', string: title },
        { type: 'pages', number: pages },
        { type: '_sharing', string: sharing },
      ]);
      if (res.status !== 201) throw new Error(`${title}: ${res.status} ${JSON.stringify(res.body)}`);
      books.set(title, res.body._id);
    }
  });
  afterAll(async () => {
    await Promise.all([t?.close(), other?.close()]);
    await api?.close();
  });

  const asOwner = (req: request.Test) => req.set('Authorization', t.owner.auth);
  const query = (body: unknown, db = t.db) => asOwner(request(api.app).post(`/api/${db}/entity/query`)).send(body as object);
  const titles = (res: request.Response): string[] => res.body.entities.map((entity: { title: { string: string }[] }) => entity.title[0]!.string).sort();

  describe('error answers are bounded', () => {
    it(`a 300 KB body of {} items: 400 with the first ${MAX_FIELD_ERRORS} errors and a count of the rest, in a few KB`, async () => {
      const body = `[${Array(100_000).fill('{}').join(',')}]`;
      expect(body.length).toBeGreaterThan(290_000);
      const res = await asOwner(request(api.app).post(`/api/${t.db}/entity`)).set('Content-Type', 'application/json').send(body);
      expectProblem(res, 400);
      expect(res.body.errors).toHaveLength(MAX_FIELD_ERRORS);
      expect(res.body.errorsOmitted).toBeGreaterThanOrEqual(100_000 - MAX_FIELD_ERRORS);
      expect(res.text.length).toBeLessThan(8_000);
    });

    it(`60 malformed filters: the first ${MAX_FIELD_ERRORS} named, 40 counted`, async () => {
      const filters = Array.from({ length: 60 }, (_, i) => `p${i}.number=x`).join('&');
      const res = await asOwner(request(api.app).get(`/api/${t.db}/entity?${filters}`));
      expectProblem(res, 400);
      expect(res.body.errors.map((error: { parameter: string }) => error.parameter)).toEqual(Array.from({ length: MAX_FIELD_ERRORS }, (_, i) => `p${i}.number`));
      expect(res.body.errorsOmitted).toBe(40);
    });

    it('a 500 000-character parameter name is not echoed back at length', async () => {
      const res = await query({ [`${'k'.repeat(500_000)}.string`]: 'x' });
      expectProblem(res, 400);
      expect(res.body.errors).toEqual([expect.objectContaining({ parameter: expect.stringMatching(/^k+…$/) })]);
      expect(res.text.length).toBeLessThan(2_000);
    });

    it('a handful of errors is shown whole, without errorsOmitted', async () => {
      const res = await asOwner(request(api.app).get(`/api/${t.db}/entity?a.number=x&b.number=y`));
      expectProblem(res, 400);
      expect(res.body.errors).toHaveLength(2);
      expect(res.body).not.toHaveProperty('errorsOmitted');
    });
  });

  describe('POST /api/{db}/entity/query: the query string in a body', () => {
    const ids = (n: number, ...real: string[]) => [...Array.from({ length: n - real.length }, randomId), ...real];

    it('an `in` of 1000 ids cannot be sent in a URL, and is answered in a body', async () => {
      const typeIds = ids(1000, book).join(',');
      const long = await asOwner(request(api.app).get(`/api/${t.db}/entity?_type.reference.in=${typeIds}`));
      expect(long.status).toBe(431);

      const res = await query({ '_type.reference.in': typeIds, 'title.string.in': [...ids(998), 'Dune', 'Ulysses'].join(','), sort: 'title.string' });
      expect(res.status).toBe(200);
      expect(titles(res)).toEqual(['Dune', 'Ulysses']);
      expect(res.body).toMatchObject({ count: 2, limit: 100, skip: 0 });
    });

    it('the TypeScript client sends such a query as it is: listEntities switches to the body', async () => {
      const client = new EntiaClient({ baseUrl: t.baseUrl, apiKey: t.owner.apiKey, db: t.db });
      const list = await client.db().listEntities({ '_type.reference.in': ids(1000, book), sort: 'title.string' });
      expect(list.entities.map((entity) => valuesOf(entity, 'title')[0]!.string)).toEqual(['Dune', 'Emma', 'Ulysses']);
    });

    it('1001 items in an `in`: 400 naming it, as on GET', async () => {
      const res = await query({ '_type.reference.in': ids(1001, book).join(',') });
      expectProblem(res, 400);
      expect(res.body.errors).toEqual([expect.objectContaining({ parameter: '_type.reference.in', message: 'at most 1000 values' })]);
    });

    it.each([
      `_type.reference=BOOK&sort=-pages.number`,
      `_type.reference=BOOK&pages.number.gte=450&props=title`,
      `_type.reference=BOOK&limit=1&skip=1&sort=title.string`,
      `_type.reference=BOOK&limit=0`,
      `q=dun`,
      `title.string.regex=/^e/i`,
    ])('answers %s exactly as GET does', async (text) => {
      const withType = text.replace('BOOK', book);
      const get = await asOwner(request(api.app).get(`/api/${t.db}/entity?${withType}`));
      const post = await query(Object.fromEntries(new URLSearchParams(withType)));
      expect(get.status).toBe(200);
      expect({ status: post.status, body: post.body }).toEqual({ status: 200, body: get.body });
    });

    it('with the same rights: anonymous callers see public entities only', async () => {
      const res = await request(api.app).post(`/api/${t.db}/entity/query`).send({ '_type.reference': book });
      expect(res.status).toBe(200);
      expect(titles(res)).toEqual(['Dune', 'Emma']);
    });

    it("with the same rights: another database's token is 403, a bad token 401, an unknown database 404", async () => {
      expectProblem(await request(api.app).post(`/api/${t.db}/entity/query`).set('Authorization', other.owner.auth).send({}), 403);
      expectProblem(await request(api.app).post(`/api/${t.db}/entity/query`).set('Authorization', 'Bearer nonsense').send({}), 401);
      expectProblem(await query({}, `nodb_${randomBytes(4).toString('hex')}`), 404);
    });

    it.each<[string, unknown, string]>([
      ['an unknown operator', { 'pages.number.like': '1' }, 'pages.number.like'],
      ['a malformed value', { 'pages.number': 'many' }, 'pages.number'],
      ['a limit out of range', { limit: '1001' }, 'limit'],
      ['a property type mismatch', { '_type.reference': 'BOOK', 'title.number': '1' }, 'title.number'],
    ])('%s: 400 naming the parameter', async (_name, body, parameter) => {
      const res = await query(JSON.parse(JSON.stringify(body).replace('BOOK', book)));
      expectProblem(res, 400);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ parameter })]));
    });

    it.each<[string, unknown]>([
      ['a number where the query string has text', { limit: 10 }],
      ['an array', { 'title.string.in': ['Dune', 'Emma'] }],
      ['null', { 'title.string': null }],
      ['a body that is an array', [['title.string', 'Dune']]],
      ['a body that is a string', 'title.string=Dune'],
    ])('%s: 400', async (_name, body) => {
      const res = await asOwner(request(api.app).post(`/api/${t.db}/entity/query`)).set('Content-Type', 'application/json').send(JSON.stringify(body));
      expectProblem(res, 400);
    });

    it('a body that is not JSON: 415', async () => {
      const res = await asOwner(request(api.app).post(`/api/${t.db}/entity/query`)).set('Content-Type', 'application/x-www-form-urlencoded').send('title.string=Dune');
      expectProblem(res, 415);
    });

    it('is never served from the cache, and ignores Idempotency-Key: a repeat sees a write made in between', async () => {
      const key = `k-${randomId()}`;
      const first = await query({ 'title.string': 'Persuasion' }).set('Idempotency-Key', key);
      expect(first.status).toBe(200);
      expect(first.body.count).toBe(0);
      expect(first.headers['cache-control']).toBe('no-store');
      expect(first.headers.etag).toBeUndefined();
      const made = await t.create([{ type: '_type', reference: book }, { type: 'title', string: 'Persuasion' }]);
      expect(made.status).toBe(201);
      const again = await query({ 'title.string': 'Persuasion' }).set('Idempotency-Key', key);
      expect(again.status).toBe(200);
      expect(again.body.count).toBe(1);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
    });

    it('is described in the OpenAPI document, without Idempotency-Key', async () => {
      const res = await request(api.app).get('/api/openapi.json');
      const operation = res.body.paths['/api/{db}/entity/query'].post;
      expect(operation.operationId).toBe('queryEntities');
      expect(operation.requestBody.content['application/json'].schema.additionalProperties).toEqual(expect.objectContaining({ type: 'string' }));
      expect(operation.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(['db']);
    });
  });

  describe(`formula definitions: at most ${MAX_FORMULAS_PER_TYPE} per type`, () => {
    const definition = (type: string, name: string, formula?: string) => [
      { type: '_type', reference: t.types.property },
      { type: '_parent', reference: type },
      { type: 'name', string: name },
      { type: 'type', string: 'number' },
      ...(formula === undefined ? [] : [{ type: 'formula', string: formula }]),
    ];

    async function typeWithFormulas(count: number): Promise<string> {
      const type = await t.defineType(`f${randomBytes(4).toString('hex')}`, [{ name: 'n', type: 'number' }]);
      for (let i = 0; i < count; i++) {
        const res = await t.create(definition(type, `f${i}`, `n ${i} SUM`));
        if (res.status !== 201) throw new Error(`formula ${i}: ${res.status} ${JSON.stringify(res.body)}`);
      }
      return type;
    }

    const formulaCount = async (type: string) => {
      const res = await query({ '_type.reference': t.types.property, '_parent.reference': type, 'formula.string.exists': 'true', limit: '0' });
      return res.body.count as number;
    };

    it(`the ${MAX_FORMULAS_PER_TYPE + 1}th formula of a type: 400, nothing written; other definitions and other types still take them`, async () => {
      const type = await typeWithFormulas(MAX_FORMULAS_PER_TYPE);
      const refused = await t.create(definition(type, 'extra', 'n 1 SUM'));
      expectProblem(refused, 400);
      expect(refused.body.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(`at most ${MAX_FORMULAS_PER_TYPE} formulas`) })]);
      expect(await formulaCount(type)).toBe(MAX_FORMULAS_PER_TYPE);
      expect((await t.create(definition(type, 'plain'))).status).toBe(201);
      expect((await t.create(definition(await typeWithFormulas(0), 'fresh', 'n 1 SUM'))).status).toBe(201);
    }, 120_000);

    it('adding a formula to an existing definition, or moving one in, past the limit: 400; changing an existing formula: fine', async () => {
      const type = await typeWithFormulas(MAX_FORMULAS_PER_TYPE);
      const plain = await t.create(definition(type, 'plain'));
      expect(plain.status).toBe(201);
      const refused = await asOwner(request(api.app).post(`/api/${t.db}/entity/${plain.body._id}`)).send([{ type: 'formula', string: 'n 2 SUM' }]);
      expectProblem(refused, 400);
      expect(refused.body.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(`at most ${MAX_FORMULAS_PER_TYPE} formulas`) })]);
      expect(await formulaCount(type)).toBe(MAX_FORMULAS_PER_TYPE);
      const existing = await query({ '_type.reference': t.types.property, '_parent.reference': type, 'name.string': 'f0' });
      const formulaValue = existing.body.entities[0].formula[0]._id as string;
      const changed = await asOwner(request(api.app).post(`/api/${t.db}/entity/${existing.body.entities[0]._id}`)).send([{ type: 'formula', _id: formulaValue, string: 'n 3 SUM' }]);
      expect(changed.status).toBe(200);
      // Nor can a formula be moved in from another type.
      const elsewhere = await t.create(definition(await typeWithFormulas(0), 'mover', 'n 1 SUM'));
      expect(elsewhere.status).toBe(201);
      const parentValue = elsewhere.body.properties._parent[0]._id as string;
      const moved = await asOwner(request(api.app).post(`/api/${t.db}/entity/${elsewhere.body._id}`)).send([{ type: '_parent', _id: parentValue, reference: type }]);
      expectProblem(moved, 400);
      expect(moved.body.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(`at most ${MAX_FORMULAS_PER_TYPE} formulas`) })]);
      expect(await formulaCount(type)).toBe(MAX_FORMULAS_PER_TYPE);
    }, 120_000);

    it('concurrent formula definitions cannot pass the limit together', async () => {
      const type = await typeWithFormulas(MAX_FORMULAS_PER_TYPE - 3);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => t.create(definition(type, `race${i}`, 'n 1 SUM'))));
      expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 201, 400, 400, 400, 400, 400]);
      expect(await formulaCount(type)).toBe(MAX_FORMULAS_PER_TYPE);
    }, 120_000);
  });
});
