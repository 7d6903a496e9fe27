import { EntiaClient, type ChangeEvent, type EntiaDatabase } from '@entia/client';
import request from 'supertest';
import { eventually } from './eventually';
import { graphqlAs } from './graphql-client';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

/** The database as `entia types` would write it: `url` is a type the SDK's static types know. */
type Links = {
  site: {
    name: { type: 'string'; list: false; multilingual: false };
    homepage: { type: 'url'; list: false; multilingual: false };
    mirrors: { type: 'url'; list: true; multilingual: false };
  };
};

/**
 * Issue 34: the `url` value type is one descriptor file (libs/domain/src/values/url.ts) and its
 * registration. Every front carries it from the descriptor alone: REST writes, reads, filters and
 * sorts it, GraphQL reads and filters it, the SDK's object layer sends and reads it, the OpenAPI
 * document lists it, and the change feed delivers it.
 */
describe('a url property, through every front', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let t: TestTenant;
  let site: string;
  let db: EntiaDatabase<Links>;
  const ids: Record<string, string> = {};

  const list = (query: string) => request(api.app).get(`/api/${t.db}/entity?_type.reference=${site}&${query}`).set('Authorization', t.owner.auth);
  const namesOf = (res: request.Response) => (res.body.entities as Record<string, { string: string }[]>[]).map((entity) => entity.name![0]!.string);

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    site = await t.defineType('site', [
      { name: 'name', type: 'string' },
      { name: 'homepage', type: 'url', search: true },
      { name: 'mirrors', type: 'url', list: true },
    ]);
    for (const [name, homepage] of [
      ['beta', 'https://beta.example.org/'],
      ['alpha', 'http://alpha.example.org/start?x=1'],
      ['gamma', 'https://gamma.example.net/a#b'],
    ]) {
      const res = await t.create([
        { type: '_type', reference: site },
        { type: 'name', string: name },
        { type: 'homepage', string: homepage },
        { type: '_sharing', string: 'domain' },
      ]);
      expect(res.status).toBe(201);
      ids[name!] = res.body._id;
    }
    db = new EntiaClient({ baseUrl: t.baseUrl, apiKey: t.owner.apiKey, db: t.db }).db<Links>();
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  describe('REST', () => {
    it('reads a url back as written, in the string field', async () => {
      const res = await request(api.app).get(`/api/${t.db}/entity/${ids.alpha}`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      expect(res.body.entity.homepage).toEqual([expect.objectContaining({ string: 'http://alpha.example.org/start?x=1' })]);
    });

    it.each([
      ['not absolute', 'example.org/page'],
      ['another scheme', 'ftp://example.org/file'],
      ['a script', 'javascript:alert(1)'],
      ['too long', `https://example.org/${'a'.repeat(2048)}`],
    ])('refuses a url %s (400)', async (_, text) => {
      const res = await t.create([
        { type: '_type', reference: site },
        { type: 'homepage', string: text },
      ]);
      expect([res.status, res.body.errors]).toEqual([400, [expect.objectContaining({ pointer: '/1/string', message: expect.stringMatching(/http or https|at most 2048/) })]]);
    });

    it('refuses a url in any field but string (400)', async () => {
      const res = await t.create([
        { type: '_type', reference: site },
        { type: 'homepage', number: 1 },
      ]);
      expect(res.status).toBe(400);
    });

    it('filters with the string operators: eq, regex, in, exists', async () => {
      expect(namesOf(await list('homepage.string=https://beta.example.org/&sort=name.string'))).toEqual(['beta']);
      expect(namesOf(await list(`homepage.string.regex=${encodeURIComponent('/^https:/')}&sort=name.string`))).toEqual(['beta', 'gamma']);
      expect(namesOf(await list(`homepage.string.in=${encodeURIComponent('https://gamma.example.net/a#b,http://alpha.example.org/start?x=1')}&sort=name.string`))).toEqual([
        'alpha',
        'gamma',
      ]);
      expect(namesOf(await list('homepage.string.exists=true&sort=name.string'))).toEqual(['alpha', 'beta', 'gamma']);
    });

    it('refuses an operator the string field does not take (400)', async () => {
      expect((await list('homepage.string.gt=a')).status).toBe(400);
    });

    it('sorts by it, both ways', async () => {
      expect(namesOf(await list('sort=homepage.string'))).toEqual(['alpha', 'beta', 'gamma']);
      expect(namesOf(await list('sort=-homepage.string'))).toEqual(['gamma', 'beta', 'alpha']);
    });

    it('searches it with q, as a searchable property', async () => {
      expect(namesOf(await list('q=gamma'))).toEqual(['gamma']);
    });

    it('is described by the schema: the value field and scalar a client reads and writes', async () => {
      const res = await request(api.app).get(`/api/${t.db}/schema`).set('Authorization', t.owner.auth);
      const described = (res.body.types as { _id: string; properties: Record<string, unknown>[] }[]).find((type) => type._id === site)!;
      expect(described.properties.find((property) => property.name === 'homepage')).toEqual(
        expect.objectContaining({ type: 'url', fields: [{ name: 'string', scalar: 'string' }], input: 'value' }),
      );
    });

    it('is never a formula result: a computed url property stays absent, though its formula has a value', async () => {
      await t.defineProperty(site, { name: 'computed_link', type: 'url', formula: 'name' });
      await t.defineProperty(site, { name: 'computed_name', type: 'string', formula: 'name' });
      const res = await t.create([
        { type: '_type', reference: site },
        { type: 'name', string: 'https://delta.example.org/' },
      ]);
      expect(res.status).toBe(201);
      // A write computes the entity's own formulas in the request (SPEC §9).
      const read = (await request(api.app).get(`/api/${t.db}/entity/${res.body._id}`).set('Authorization', t.owner.auth)).body.entity;
      expect([read.computed_name?.[0]?.string, read.computed_link]).toEqual(['https://delta.example.org/', undefined]);
    });
  });

  describe('GraphQL', () => {
    it('reads a url field as a String and filters and sorts it with the string operators', async () => {
      const gql = graphqlAs(t);
      const answer = await gql<{ siteList: { entities: { name: string; homepage: string | null; mirrors: string[] }[] } }>(`{
        siteList(filter: { homepage: { regex: "/^https:/" } }, sort: [homepage_DESC]) { entities { name homepage mirrors } }
      }`);
      expect(answer.errors).toBeUndefined();
      expect(answer.data!.siteList.entities).toEqual([
        { name: 'gamma', homepage: 'https://gamma.example.net/a#b', mirrors: [] },
        { name: 'beta', homepage: 'https://beta.example.org/', mirrors: [] },
      ]);
      const schema = await gql<{ __type: { fields: { name: string; type: { name: string | null } }[] } }>(`{ __type(name: "Site") { fields { name type { name } } } }`);
      expect(schema.data!.__type.fields.find((field) => field.name === 'homepage')!.type.name).toBe('String');
    });

    it('writes a url through a mutation, checked like REST', async () => {
      const gql = graphqlAs(t);
      const refused = await gql(`mutation { addValues(id: "${ids.beta}", values: [{ type: "mirrors", string: "beta.example.org" }]) { _id } }`);
      expect(refused.errors?.[0]?.message).toBeDefined();
      const added = await gql<{ addValues: { values: { type: string; string: string }[] } }>(
        `mutation { addValues(id: "${ids.beta}", values: [{ type: "mirrors", string: "https://mirror.example.org/beta" }]) { values { type string } } }`,
      );
      // The answer also lists what the write recomputed (the REST test's `computed_name`).
      expect(added.data!.addValues.values.filter((value) => value.type === 'mirrors')).toEqual([{ type: 'mirrors', string: 'https://mirror.example.org/beta' }]);
    });
  });

  describe('the SDK', () => {
    it('sends and reads a url through the typed object layer, and filters and sorts by it', async () => {
      const sites = db.type('site');
      const created = await sites.create({ name: 'epsilon', homepage: 'https://epsilon.example.org/', mirrors: ['https://m1.example.org/', 'http://m2.example.org/'], _sharing: 'domain' });
      const read = await sites.get(created._id);
      expect([read.homepage, read.mirrors]).toEqual(['https://epsilon.example.org/', ['https://m1.example.org/', 'http://m2.example.org/']]);
      const page = await sites.list({ where: { homepage: { regex: /^https:\/\/e/ } }, sort: '-homepage' });
      expect(page.items.map((entity) => entity.name)).toEqual(['epsilon']);
      await sites.update(created._id, { homepage: 'https://epsilon.example.org/new' });
      expect((await sites.get(created._id)).homepage).toBe('https://epsilon.example.org/new');
      // The server's check, not the SDK's: a url that is no address is refused there.
      await expect(sites.create({ name: 'bad', homepage: 'not an address' })).rejects.toMatchObject({
        status: 400,
        problem: { errors: [expect.objectContaining({ message: expect.stringMatching(/http or https/) })] },
      });
    });

    it('refuses a value of the wrong scalar before anything is sent', async () => {
      await expect(db.type('site').create({ homepage: 42 } as never)).rejects.toThrow(/"homepage" takes a string, not number/);
    });
  });

  it('is listed in the OpenAPI document as a value type, with the fields a client reads', async () => {
    const doc = (await request(api.app).get('/api/openapi.json')).body;
    const described = doc.paths['/api/{db}/schema'].get.responses['200'].content['application/json'].schema.properties.types.items.properties.properties.items;
    const types = (described.properties.type.anyOf as { const: string }[]).map((literal) => literal.const);
    expect(types).toContain('url');
    expect(Object.keys(described.properties)).toEqual(expect.arrayContaining(['fields', 'input']));
  });

  it('is delivered by the change feed, and a feed may filter on it', async () => {
    const events: ChangeEvent[] = [];
    const notices: string[] = [];
    const subscription = db.subscribe({ '_type.reference': site, 'homepage.string.regex': '/^https:\\/\\/zeta/' }, (event) => events.push(event), {
      props: ['homepage'],
      onNotice: (notice) => notices.push(notice),
    });
    try {
      await eventually(async () => notices, (seen) => seen.includes('ready'));
      const zeta = await t.create([
        { type: '_type', reference: site },
        { type: 'name', string: 'zeta' },
        { type: 'homepage', string: 'https://zeta.example.org/' },
      ]);
      expect(zeta.status).toBe(201);
      const [event] = await eventually(async () => events, (seen) => seen.length > 0);
      expect(event!.entity).toBe(zeta.body._id);
      expect((event!.values as Record<string, { string?: string }[]>).homepage).toEqual([expect.objectContaining({ string: 'https://zeta.example.org/' })]);
    } finally {
      subscription.close();
      await subscription.done;
    }
  });
});
