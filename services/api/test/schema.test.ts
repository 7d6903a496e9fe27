import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type Definition, type Person, type TestTenant } from './tenant';

interface Described {
  _id: string;
  name: string;
  type: string;
  list: boolean;
  multilingual: boolean;
  search: boolean;
  mandatory: boolean;
  readonly: boolean;
  formula?: string;
  reference_query?: string;
  fields: { name: string; scalar: string }[];
  input: string;
}
interface TypeDescribed {
  _id: string;
  name: string;
  properties: Described[];
}

const FLAGS = { list: false, multilingual: false, search: false, mandatory: false, readonly: false };
// What each value type's descriptor says a front reads and writes (issue 34).
const TEXT = { fields: [{ name: 'string', scalar: 'string' }], input: 'value' };
const NUMBER = { fields: [{ name: 'number', scalar: 'number' }], input: 'value' };
const REFERENCE = { fields: [{ name: 'reference', scalar: 'id' }], input: 'value' };
const META_TYPES = ['database', 'entity', 'person', 'property', 'webhook'];

// Issue 19: GET /api/{db}/schema, a database's types and definitions in one call, as the caller may read them.
describe('GET /api/{db}/schema', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let t: TestTenant;
  let reader: Person;
  let stranger: Person;
  let author: string;
  let book: string;
  let diary: string;
  let leaflet: string;
  /** The definitions of `book`, by name: their entity ids. */
  const defs = {} as Record<'tags' | 'summary' | 'double' | 'author' | 'pages' | 'title' | 'notes', string>;

  // `null`: anonymous.
  const schema = (by: Person | null = t.owner, db = t.db, query = '') => {
    const req = request(api.app).get(`/api/${db}/schema${query}`);
    return by ? req.set('Authorization', by.auth) : req;
  };
  const typesOf = async (by: Person | null = t.owner): Promise<TypeDescribed[]> => {
    const res = await schema(by);
    expect(res.status).toBe(200);
    return res.body.types;
  };
  const typeNamed = async (id: string, by: Person | null = t.owner) => (await typesOf(by)).find((type) => type._id === id);
  const post = (id: string, values: object[], by: Person = t.owner) => request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth).send(values);
  const expectPosted = async (id: string, values: object[], by: Person = t.owner) => {
    const res = await post(id, values, by);
    expect(res.status).toBe(200);
    return res.body;
  };
  /** A definition of `typeId`, with more values (`_sharing`, `ordinal`) after its own. */
  const define = async (typeId: string, definition: Definition, more: object[] = [], by: Person = t.owner) => {
    const id = await t.defineProperty(typeId, definition, by);
    if (more.length > 0) await expectPosted(id, more, by);
    return id;
  };
  const shared = [{ type: '_sharing', string: 'domain' }];

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    reader = await t.newPerson('Reader');
    stranger = await t.newPerson('Stranger');
    author = await t.defineType('author', []);
    await define(author, { name: 'name', type: 'string', search: true }, shared);
    book = await t.defineType('book', []);
    // Created out of order: the answer orders them by ordinal, then name.
    defs.tags = await define(book, { name: 'tags', type: 'string', list: true }, shared);
    defs.summary = await define(book, { name: 'summary', type: 'text', multilingual: true }, shared);
    defs.double = await define(book, { name: 'double', type: 'number', formula: 'pages 2 MULTIPLY' }, shared);
    defs.author = await define(book, { name: 'author', type: 'reference', reference_query: `_type.reference=${author}` }, [...shared, { type: 'ordinal', number: 2 }]);
    defs.pages = await define(book, { name: 'pages', type: 'number', readonly: true }, shared);
    defs.title = await define(book, { name: 'title', type: 'string', mandatory: true, search: true }, [...shared, { type: 'ordinal', number: 1 }]);
    // Private to the owner (definitions are private unless shared, like any entity).
    defs.notes = await define(book, { name: 'notes', type: 'text' });

    // The stranger's own type: private (the default), with a definition of its own.
    diary = await t.create([{ type: '_type', reference: t.types.entity }, { type: 'name', string: 'diary' }], stranger).then((res) => res.body._id);
    await define(diary, { name: 'entry', type: 'text' }, [], stranger);

    // A public type with one public and one domain definition.
    leaflet = await t.defineType('leaflet', []);
    await expectPosted(leaflet, [{ type: '_sharing', string: 'public' }]);
    await define(leaflet, { name: 'headline', type: 'string' }, [{ type: '_sharing', string: 'public' }]);
    await define(leaflet, { name: 'internal', type: 'string' }, shared);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  it('describes a type with exactly its definitions’ flags, ordered by ordinal, then name', async () => {
    const described = await typeNamed(book);
    expect(described).toEqual({
      _id: book,
      name: 'book',
      properties: [
        { _id: defs.title, name: 'title', type: 'string', ...FLAGS, mandatory: true, search: true, ...TEXT },
        { _id: defs.author, name: 'author', type: 'reference', ...FLAGS, reference_query: `_type.reference=${author}`, ...REFERENCE },
        { _id: defs.double, name: 'double', type: 'number', ...FLAGS, formula: 'pages 2 MULTIPLY', ...NUMBER },
        { _id: defs.notes, name: 'notes', type: 'text', ...FLAGS, ...TEXT },
        { _id: defs.pages, name: 'pages', type: 'number', ...FLAGS, readonly: true, ...NUMBER },
        { _id: defs.summary, name: 'summary', type: 'text', ...FLAGS, multilingual: true, ...TEXT },
        { _id: defs.tags, name: 'tags', type: 'string', ...FLAGS, list: true, ...TEXT },
      ],
    });
    // `formula` / `reference_query` only where defined: not even as null.
    expect(Object.keys(described!.properties.find((p) => p.name === 'tags')!).sort()).toEqual([
      '_id',
      'fields',
      'input',
      'list',
      'mandatory',
      'multilingual',
      'name',
      'readonly',
      'search',
      'type',
    ]);
  });

  it('lists the meta-types with their definitions, types by name; never a system property', async () => {
    const res = await schema();
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const types: TypeDescribed[] = res.body.types;
    expect(types.map((type) => type.name)).toEqual(['author', 'book', 'database', 'entity', 'leaflet', 'person', 'property', 'webhook']);
    expect(META_TYPES.map((name) => types.find((type) => type.name === name)!._id)).toEqual(META_TYPES.map((name) => t.types[name as keyof typeof t.types]));
    expect(types.find((type) => type.name === 'property')!._id).toBe(t.types.property);
    expect(types.find((type) => type.name === 'property')!.properties.map((p) => p.name)).toEqual(
      expect.arrayContaining(['name', 'type', 'list', 'multilingual', 'search', 'reference_query', 'formula', 'mandatory', 'readonly', 'ordinal']),
    );
    expect(types.find((type) => type.name === 'entity')!.properties.find((p) => p.name === 'name')).toMatchObject({ type: 'string', search: true, list: false });
    const names = types.flatMap((type) => type.properties.map((p) => p.name));
    expect(names.filter((name) => name.startsWith('_'))).toEqual([]);
  });

  it('shows another person only what they may read: not a private type of someone else, nor a definition they cannot read', async () => {
    const forReader = await typesOf(reader);
    expect(forReader.map((type) => type.name)).toEqual(['author', 'book', 'database', 'entity', 'leaflet', 'person', 'property', 'webhook']);
    // `notes` is private to the owner.
    expect(forReader.find((type) => type._id === book)!.properties.map((p) => p.name)).toEqual(['title', 'author', 'double', 'pages', 'summary', 'tags']);
    // The stranger sees their own private type; the owner of the database does not.
    expect((await typesOf(stranger)).find((type) => type._id === diary)).toEqual({
      _id: diary,
      name: 'diary',
      properties: [{ _id: expect.any(String), name: 'entry', type: 'text', ...FLAGS, ...TEXT }],
    });
    expect((await typesOf()).some((type) => type._id === diary)).toBe(false);
    // A right given on a definition shows it to that person alone.
    await expectPosted(defs.notes, [{ type: '_viewer', reference: reader.id }]);
    expect((await typeNamed(book, reader))!.properties.map((p) => p.name)).toContain('notes');
    expect((await typeNamed(book, stranger))!.properties.map((p) => p.name)).not.toContain('notes');
  });

  it('shows anonymous callers only public types, and of them only public definitions', async () => {
    expect(await typesOf(null)).toEqual([{ _id: leaflet, name: 'leaflet', properties: [{ _id: expect.any(String), name: 'headline', type: 'string', ...FLAGS, ...TEXT }] }]);
  });

  it('an unknown database is 404, a forged token 401, a token for another database 403', async () => {
    for (const by of [t.owner, null]) {
      const res = await schema(by, 'nosuchdb_here');
      expect([res.status, res.headers['content-type']]).toEqual([404, expect.stringMatching(/^application\/problem\+json/)]);
    }
    const forged = await request(api.app).get(`/api/${t.db}/schema`).set('Authorization', 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.forged');
    expect([forged.status, forged.headers['content-type']]).toEqual([401, expect.stringMatching(/^application\/problem\+json/)]);
    const other = await testTenant(api);
    try {
      expect((await schema(t.owner, other.db)).status).toBe(403);
      expect((await schema(other.owner, other.db)).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('is served from the schema cache while it is current, and shows a changed definition in the very next answer', async () => {
    const load = jest.spyOn(api.deps.schemas as unknown as { load: () => Promise<unknown> }, 'load');
    try {
      await typesOf();
      load.mockClear();
      const again = await typesOf();
      const anonymous = await typesOf(null);
      expect(load).not.toHaveBeenCalled();

      // list false → true on a definition, and a new definition: both in the next answer.
      await expectPosted(defs.pages, [{ type: 'list', boolean: true }]);
      expect((await typeNamed(book))!.properties.find((p) => p.name === 'pages')).toMatchObject({ list: true, readonly: true });
      // Reloaded once the token changed (the write itself may have loaded it too).
      expect(load).toHaveBeenCalled();
      const isbn = await define(book, { name: 'isbn', type: 'string' }, [...shared, { type: 'ordinal', number: 1.5 }]);
      expect((await typeNamed(book))!.properties.map((p) => [p.name, p._id]).slice(0, 3)).toEqual([
        ['title', defs.title],
        ['isbn', isbn],
        ['author', defs.author],
      ]);
      // A change of a type's sharing, too: the book type made public is seen by anonymous callers at once.
      await expectPosted(book, [{ type: '_sharing', string: 'public' }]);
      expect((await typesOf(null)).map((type) => type.name)).toEqual(['book', 'leaflet']);
      expect(again).not.toEqual(await typesOf());
      expect(anonymous).not.toEqual(await typesOf(null));
    } finally {
      load.mockRestore();
      await expectPosted(book, [{ type: '_sharing', string: 'domain' }]);
    }
  });

  it('answers an ETag; If-None-Match gives 304 until something the caller sees changes', async () => {
    const first = await schema();
    expect(first.status).toBe(200);
    const firstTag = first.headers.etag as string;
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');

    const unchanged = await schema().set('If-None-Match', firstTag);
    expect([unchanged.status, unchanged.text ?? '', unchanged.headers.etag]).toEqual([304, '', first.headers.etag]);
    // A browser's fetch adds `Cache-Control: no-cache` to a conditional request: still 304.
    expect((await schema().set('If-None-Match', firstTag).set('Cache-Control', 'no-cache')).status).toBe(304);
    expect((await schema().set('If-None-Match', '"something-else"')).status).toBe(200);

    // Another caller's view has another tag: an owner's copy is never current for an anonymous caller.
    const anonymous = await schema(null);
    const anonymousTag = anonymous.headers.etag as string;
    expect(anonymous.headers.etag).not.toBe(first.headers.etag);
    expect((await schema(null).set('If-None-Match', firstTag)).status).toBe(200);
    expect((await schema(null).set('If-None-Match', anonymousTag)).status).toBe(304);

    // A change of what the owner sees gives a new tag; the old one is then answered in full.
    await expectPosted(defs.summary, [{ type: 'search', boolean: true }]);
    const changed = await schema().set('If-None-Match', firstTag);
    const changedTag = changed.headers.etag as string;
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(first.headers.etag);
    expect(changed.body.types.find((type: TypeDescribed) => type._id === book).properties.find((p: Described) => p.name === 'summary').search).toBe(true);
    expect((await schema().set('If-None-Match', changedTag)).status).toBe(304);
    // What the anonymous caller sees did not change: their tag is still current.
    expect((await schema(null).set('If-None-Match', anonymousTag)).status).toBe(304);
  });

  it('hostile input: a database name outside the rule is 404, never 500; a query parameter is 400 naming it', async () => {
    for (const db of ['__proto__', '$where', '%24where', 'constructor', 'hasOwnProperty', 'admin', '..', '%2e%2e', 'a'.repeat(300)]) {
      const res = await request(api.app).get(`/api/${db}/schema`).set('Authorization', t.owner.auth);
      expect([db, res.status, res.headers['content-type']]).toEqual([db, 404, expect.stringMatching(/^application\/problem\+json/)]);
    }
    // The route takes no parameters: one given is refused rather than silently ignored (see routes/schema.ts).
    for (const [query, parameter] of [
      ['?type=book', 'type'],
      ['?__proto__=x', '__proto__'],
      ['?$where=1', '$where'],
      ['?constructor[prototype]=1', 'constructor[prototype]'],
    ]) {
      const res = await schema(t.owner, t.db, query);
      expect([query, res.status, res.body.errors?.map((e: { parameter: string }) => e.parameter)]).toEqual([query, 400, [parameter]]);
    }
    expect((await request(api.app).post(`/api/${t.db}/schema`).set('Authorization', t.owner.auth).send({})).status).toBe(405);
  });
});
