import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/**
 * Hostile query strings against GET /api/{db}/entity (SPEC §7, §11): every refusal is a 400 naming
 * the parameter (or another clear 4xx), slow patterns are bounded (200, 400 or 503 within seconds),
 * operator-looking values are matched literally, and nothing is ever a 500.
 */

const ENCODED = /%[0-9A-F]{2}/i;

/** `key=value&…` with each key and value percent-encoded (unless already encoded). */
function encode(query: string): string {
  const part = (text: string) => (ENCODED.test(text) ? text : encodeURIComponent(text).replace(/%2C/g, ','));
  return query
    .split('&')
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? part(pair) : `${part(pair.slice(0, at))}=${part(pair.slice(at + 1))}`;
    })
    .join('&');
}

/** A problem answer (RFC 9457) with one of `statuses`, never a stack trace. */
function expectProblem(res: request.Response, statuses: number[]): void {
  expect({ status: res.status, body: res.body }).toEqual({ status: statuses.includes(res.status) ? res.status : statuses[0], body: expect.anything() });
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status: res.status, title: expect.any(String), detail: expect.any(String) });
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\.[jt]s:\d+/);
}

/** A 400 whose errors name `parameter`. */
function expectParameterError(res: request.Response, parameter: string): void {
  expectProblem(res, [400]);
  expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ parameter })]));
}

describe('hostile queries (SPEC §7, §11)', () => {
  let api: TestApi;
  let t: TestTenant;
  let thing: string;
  const ids: Record<string, string> = {};
  const LITERALS = ['$where', '{"$gt":""}', '{"$ne":null}', 'a.b', '[object Object]', "'; DROP TABLE entity; --"];

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    t = await testTenant(api);
    thing = await t.defineType('thing', [
      { name: 'title', type: 'string', search: true },
      { name: 'long', type: 'string' },
      { name: 'qty', type: 'number' },
      { name: 'flag', type: 'boolean' },
      { name: 'day', type: 'date' },
      { name: 'ref', type: 'reference' },
    ]);
    const make = async (key: string, values: object[]) => {
      const res = await t.create([{ type: '_type', reference: thing }, ...values]);
      if (res.status !== 201) throw new Error(`${key}: ${res.status} ${JSON.stringify(res.body)}`);
      ids[key] = res.body._id;
    };
    await Promise.all([
      ...LITERALS.map((literal) => make(literal, [{ type: 'title', string: literal }, { type: 'qty', number: 1 }])),
      // Inputs for catastrophic backtracking: long runs of "a" that end in something else.
      make('aaaa!', [{ type: 'title', string: 'aaaa' }, { type: 'long', string: `${'a'.repeat(9_999)}!` }]),
      make('aaaa', [{ type: 'title', string: 'aaaa2' }, { type: 'long', string: 'a'.repeat(5_000) }]),
      make('mixed', [{ type: 'title', string: 'mixed' }, { type: 'long', string: `${'ab'.repeat(4_000)}c` }]),
    ]);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const raw = (query: string) => request(api.app).get(`/api/${t.db}/entity?${query}`).set('Authorization', t.owner.auth);
  const things = (query: string) => raw(`_type.reference=${thing}&${encode(query)}`);
  const titles = (res: request.Response): string[] => res.body.entities.map((e: { title?: { string: string }[] }) => e.title?.[0]?.string);

  describe('malformed keys and values: 400 naming the parameter', () => {
    it.each(
      (
        [
      // unknown operators and malformed keys
      ['title.string.like=x', 'title.string.like'],
      ['title.string.$ne=x', 'title.string.$ne'],
      ['title.$ne.string=x', 'title.$ne.string'],
      ['title.string.eq.x=y', 'title.string.eq.x'],
      ['title.string.where=1', 'title.string.where'],
      ['$where=1', '$where'],
      ['$where=function(){return true}', '$where'],
      ['$or=[{"title.string":"x"}]', '$or'],
      ['$expr={"$eq":[1,1]}', '$expr'],
      ['title[$ne]=x', 'title[$ne]'],
      ['title.string[$gt]=', 'title.string[$gt]'],
      ['__read.string=public', '__read.string'],
      ['__q.string=a', '__q.string'],
      ['__proto__.string=x', '__proto__.string'],
      ['title=x', 'title'],
      ['tïtle.string=x', 'tïtle.string'],
      // type mismatches and operators the type does not take
      ['qty.string=1', 'qty.string'],
      ['title.number=1', 'title.number'],
      ['flag.number=1', 'flag.number'],
      ['day.datetime=2024-01-01T00:00:00Z', 'day.datetime'],
      ['flag.string=x', 'flag.string'],
      ['qty.number.regex=/1/', 'qty.number.regex'],
      ['flag.boolean.gt=true', 'flag.boolean.gt'],
      ['ref.reference.regex=/a/', 'ref.reference.regex'],
      ['title.string.gt=a', 'title.string.gt'],
      ['constructor.string=x', 'constructor.string'],
      ['hasOwnProperty.string=x', 'hasOwnProperty.string'],
      ['_id.string=x', '_id.string'],
      ['nobody.string=x', 'nobody.string'],
      // malformed values
      ['qty.number=abc', 'qty.number'],
      ['qty.number={"$gt":0}', 'qty.number'],
      ['qty.number.in=1,{"$gt":0}', 'qty.number.in'],
      ['flag.boolean={"$ne":false}', 'flag.boolean'],
      ['day.date=$where', 'day.date'],
      ['ref.reference={"$ne":null}', 'ref.reference'],
      ['ref.reference=aaaaaaaaaaaaaaaaaaaaaaaaa', 'ref.reference'],
      ['title.string.exists={"$ne":1}', 'title.string.exists'],
      // regex: length, validity, unsupported constructs, flags
      [`title.string.regex=/${'a'.repeat(513)}/`, 'title.string.regex'],
      ['title.string.regex=/(/', 'title.string.regex'],
      ['title.string.regex=/[a-/', 'title.string.regex'],
      ['title.string.regex=/a{2,1}/', 'title.string.regex'],
      ['title.string.regex=/(?<=a)b/', 'title.string.regex'],
      ['title.string.regex=/(a)\\1/', 'title.string.regex'],
      ['title.string.regex=/a/g', 'title.string.regex'],
      ['title.string.regex=/a/$where', 'title.string.regex'],
      ['title.string.regex={"$regex":"a"}', 'title.string.regex'],
      ['title.string.regex=a', 'title.string.regex'],
      // in: too many items (empty strings are items too, and keep the URL short)
      [`title.string.in=${','.repeat(1000)}`, 'title.string.in'],
      [`title.string.in=${','.repeat(9_999)}`, 'title.string.in'],
      [`qty.number.in=${Array.from({ length: 1001 }, (_, i) => i).join(',')}`, 'qty.number.in'],
      // limit, skip
      ['limit=-1', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=99999999999999999999', 'limit'],
      ['limit=1e3', 'limit'],
      ['limit=NaN', 'limit'],
      ['limit=', 'limit'],
      ['limit={"$gt":0}', 'limit'],
      ['skip=-1', 'skip'],
      ['skip=-99999999999999999999', 'skip'],
      ['skip=abc', 'skip'],
      ['skip=1.5', 'skip'],
      // sort, props, q
      ['sort=__read.string', 'sort'],
      ['sort={"$natural":1}', 'sort'],
      ['sort=title.string;qty.number', 'sort'],
      ['sort=title.number', 'sort'],
      ['props=__read', 'props'],
      ['props=__proto__', 'props'],
      ['props=title.strings', 'props'],
      ['props=title.string.regex', 'props'],
      ['props=title.__proto__', 'props'],
      [`q=${Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ')}`, 'q'],
      ] as [string, string][]
    ).map(([query, parameter]): [string, string, string] => [query.length > 80 ? `${query.slice(0, 60)}… (${query.length} characters)` : query, query, parameter]))(
      '%s',
      async (_label, query, parameter) => {
        expectParameterError(await things(query), parameter);
      },
    );
  });

  describe('a parameter given twice: 400 naming it', () => {
    it.each<[string, string]>([
      ['title.string=a&title.string=b', 'title.string'],
      ['title.string=a&title.string=a', 'title.string'],
      ['qty.number.gt=1&qty.number.gt=2', 'qty.number.gt'],
      ['limit=1&limit=2', 'limit'],
      ['skip=1&skip=1', 'skip'],
      ['sort=title.string&sort=-title.string', 'sort'],
      ['q=a&q=b', 'q'],
      ['props=title&props=qty', 'props'],
    ])('%s', async (query, parameter) => {
      expectParameterError(await things(query), parameter);
    });

    it('_type.reference twice', async () => {
      expectParameterError(await raw(`_type.reference=${thing}&_type.reference=${thing}`), '_type.reference');
    });
  });

  describe('operator-looking values are literals', () => {
    it.each(LITERALS)('title.string=%s finds exactly the entity with that title', async (literal) => {
      const res = await things(`title.string=${literal}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(1);
      expect(res.body.entities.map((e: { _id: string }) => e._id)).toEqual([ids[literal]]);
    });

    it('in, ne and regex take them literally too', async () => {
      const [inRes, neRes, regexRes, qRes] = await Promise.all([
        things('title.string.in=$where,{"$ne":null}'),
        things('title.string.ne=$where&qty.number=1'),
        things('title.string.regex=/^\\$where$/'),
        things('q=$where'),
      ]);
      expect(titles(inRes).sort()).toEqual(['$where', '{"$ne":null}'].sort());
      expect(regexRes.body.count).toBe(1);
      expect(titles(regexRes)).toEqual(['$where']);
      expect(qRes.status).toBe(200);
      expect(titles(qRes)).toContain('$where');
      expect(neRes.status).toBe(200);
    });

    it('ne takes them literally: "some value differs" finds every other literal title', async () => {
      const res = await things('title.string.ne=$where&qty.number=1');
      expect(res.status).toBe(200);
      expect(titles(res).sort()).toEqual(LITERALS.filter((l) => l !== '$where').sort());
    });

    it('control characters and odd unicode in values are plain values', async () => {
      for (const query of ['title.string=%00', 'title.string=%E2%80%AE', 'title.string=%F0%9F%92%A9', 'q=%00%01x', 'title.string.regex=/%00/', 'title.string=%ED%A0%80']) {
        const res = await raw(`_type.reference=${thing}&${query}`);
        expect({ query, status: res.status, count: res.body.count }).toEqual({ query, status: 200, count: 0 });
      }
      // A q without any word searches nothing: it is no filter at all.
      const empty = await raw(`_type.reference=${thing}&q=%00%01`);
      expect(empty.status).toBe(200);
    });
  });

  describe('slow patterns are bounded: 200, 400 or 503 within seconds, never a hang or a 500', () => {
    it.each([
      '/(a|a)*b$/',
      '/(a+)+$/',
      '/(a+)+b/',
      '/(a*)*b/',
      '/(a|aa)+$/',
      '/^(a+)+$/i',
      '/(.*a){20}/',
      '/((ab)*)*c$/',
      '/(\\w+\\s?)+$/',
      '/(x+x+)+y/',
      '/(a{1000}){1000}/',
      '/a{1001}/',
      '/\\Z/',
      '/[[:foo:]]/',
      '/\\p{Nope}/u',
    ])('long.string.regex=%s', async (pattern) => {
      const started = Date.now();
      const res = await things(`long.string.regex=${pattern}`);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeLessThan(10_000);
      expect([200, 400, 503]).toContain(res.status);
      if (res.status !== 200) expectProblem(res, [400, 503]);
    }, 15_000);

    // Valid for JavaScript, but refused by RE2 (FerretDB) or PCRE (MongoDB): still a malformed
    // value of that parameter (SPEC §7), so the 400 names it.
    it.each(['/(a{1000}){1000}/', '/a{1001}/', '/\\Z/', '/[[:foo:]]/'])('a pattern the database refuses (%s) is a 400 naming the parameter', async (pattern) => {
      const res = await things(`long.string.regex=${pattern}`);
      expect([200, 400]).toContain(res.status);
      if (res.status === 400) expectParameterError(res, 'long.string.regex');
    });

    it('the slow patterns still answer correctly where they answer', async () => {
      const [tail, whole] = await Promise.all([things('long.string.regex=/(a+)+$/'), things('long.string.regex=/^(a|a)*!$/')]);
      if (tail.status === 200) expect(titles(tail)).toEqual(['aaaa2']);
      if (whole.status === 200) expect(titles(whole)).toEqual(['aaaa']);
    }, 25_000);
  });

  describe('sizes: never a 500', () => {
    it('in with 1000 numbers is fine', async () => {
      const res = await things(`qty.number.in=${Array.from({ length: 1000 }, (_, i) => i).join(',')}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(LITERALS.length);
    });

    it('in with 10 000 numbers is refused by the HTTP layer for its length (431: the request line is over the header limit)', async () => {
      const res = await things(`qty.number.in=${Array.from({ length: 10_000 }, (_, i) => i).join(',')}`);
      expect(res.status).toBe(431);
    });

    it('skip at its maximum (10 000 000) is an empty page; beyond it a 400 naming skip', async () => {
      const page = await things('skip=10000000');
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ entities: [], count: Object.keys(ids).length });
      expectParameterError(await things('skip=99999999999999999999'), 'skip');
    });

    it('a very long value is refused (400)', async () => {
      const res = await things(`title.string=${'x'.repeat(12_000)}`);
      expectProblem(res, [400]);
    });

    it('many filters are answered or refused', async () => {
      const many = ['title.string', 'long.string'].flatMap((p) => ['', '.ne', '.in', '.exists', '.regex'].map((op) => `${p}${op}`));
      const values: Record<string, string> = { '': 'x', '.ne': 'x', '.in': 'x,y', '.exists': 'true', '.regex': '/x/' };
      const query = many.map((key) => `${key}=${values[key.slice(key.lastIndexOf('.')).replace(/^\.string$/, '')] ?? 'x'}`).join('&');
      const res = await things(`${query}&qty.number.gt=0&qty.number.lt=9&qty.number.ne=5&day.date.gte=2000-01-01`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(0);
      const unknown = await things(Array.from({ length: 60 }, (_, i) => `p${i}.string=x`).join('&'));
      expectProblem(unknown, [400]);
    });

    it('a regex pattern of 512 characters is fine', async () => {
      const res = await things(`title.string.regex=/${'a'.repeat(512)}/`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(0);
    });

    it('limit=0 and limit=1000 are the bounds', async () => {
      expect((await things('limit=0')).body).toEqual({ entities: [], count: Object.keys(ids).length, limit: 0, skip: 0 });
      expect((await things('limit=1000')).status).toBe(200);
    });
  });
});
