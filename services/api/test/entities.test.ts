import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, type TestTenant } from './tenant';

const ID = /^[0-9a-f]{24}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('entities and values (SPEC §3, §4, §7)', () => {
  let api: TestApi;
  let t: TestTenant;
  let bookType: string;

  beforeAll(async () => {
    api = testApi();
    t = await testTenant(api);
    bookType = await t.defineType('book', [
      { name: 'title', type: 'string' },
      { name: 'summary', type: 'text' },
      { name: 'pages', type: 'number' },
      { name: 'available', type: 'boolean' },
      { name: 'published', type: 'date' },
      { name: 'updated', type: 'datetime' },
      { name: 'author', type: 'reference' },
      { name: 'scan', type: 'file' },
      { name: 'tag', type: 'string', list: true },
      { name: 'label', type: 'string', multilingual: true },
      { name: 'note', type: 'text', list: true, multilingual: true },
    ]);
  });
  afterAll(async () => {
    await t.close();
    await api.close();
  });

  const entityPath = (id: string) => `/api/${t.db}/entity/${id}`;
  const get = (id: string) => request(api.app).get(entityPath(id)).set('Authorization', t.owner.auth);
  const post = (id: string, values: object[]) => request(api.app).post(entityPath(id)).set('Authorization', t.owner.auth).send(values);
  const book = (values: object[] = []) => t.create([{ type: '_type', reference: bookType }, ...values]);

  describe('POST /api/{db}/entity', () => {
    it('creates: 201, Location, the created values with _id, type, value and created', async () => {
      const res = await book([{ type: 'title', string: 'Dune' }]);
      expect(res.status).toBe(201);
      expect(res.body._id).toMatch(ID);
      expect(res.headers.location).toBe(`/api/${t.db}/entity/${res.body._id}`);
      const title = res.body.properties.title[0];
      expect(title).toEqual({ _id: expect.stringMatching(ID), type: 'title', string: 'Dune', created: { at: expect.stringMatching(ISO), by: t.owner.id } });
    });

    it('sets _created and makes the creator _owner (SPEC §4)', async () => {
      const res = await book();
      expect(res.body.properties._created).toEqual([
        // `string` is the label: the creator's name.
        { _id: expect.stringMatching(ID), type: '_created', datetime: expect.stringMatching(ISO), reference: t.owner.id, string: 'Owner', created: expect.any(Object) },
      ]);
      expect(res.body.properties._owner[0]).toMatchObject({ type: '_owner', reference: t.owner.id });
      const stored = (await get(res.body._id)).body.entity;
      expect(stored._owner.map((v: { reference: string }) => v.reference)).toEqual([t.owner.id]);
    });

    it('refuses an entity without _type, or with a _type that is not a type', async () => {
      const untyped = await t.create([{ type: 'name', string: 'x' }, { type: 'title', string: 'Dune' }]);
      expect(untyped.status).toBe(400);
      // Told that _type is missing, not that "title" is unknown.
      expect(untyped.body.detail).toContain('An entity needs its _type');
      expect(JSON.stringify(untyped.body)).not.toContain('unknown property');
      const notAType = (await book()).body._id;
      const res = await t.create([{ type: '_type', reference: notAType }]);
      expect(res.status).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ pointer: '/0/reference' });
    });

    it('refuses a property the type does not define, naming it', async () => {
      const res = await book([{ type: 'colour', string: 'red' }]);
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ pointer: '/1/type', message: expect.stringContaining('unknown property "colour"') }]);
    });
  });

  describe('value types (SPEC §3 table): accepted, returned, refused', () => {
    it.each([
      ['string', { type: 'title', string: 'Ülle' }, { string: 'Ülle' }],
      ['text', { type: 'summary', string: 'x'.repeat(20_000) }, { string: 'x'.repeat(20_000) }],
      ['number', { type: 'pages', number: 412.5 }, { number: 412.5 }],
      ['boolean', { type: 'available', boolean: false }, { boolean: false }],
      ['date', { type: 'published', date: '2024-02-29' }, { date: '2024-02-29' }],
      ['datetime (normalised to UTC)', { type: 'updated', datetime: '2024-05-01T12:30:00+02:00' }, { datetime: '2024-05-01T10:30:00.000Z' }],
      ['file', { type: 'scan', filename: 'a.pdf', filesize: 10, filetype: 'application/pdf' }, { filename: 'a.pdf', filesize: 10, filetype: 'application/pdf' }],
    ])('%s is stored and read back', async (_name, input, expected) => {
      const id = (await book([input])).body._id;
      const value = (await get(id)).body.entity[input.type][0];
      expect(value).toMatchObject({ type: input.type, ...expected });
    });

    it('reference: to an existing readable entity; returned as its id', async () => {
      const author = (await t.create([{ type: '_type', reference: t.types.person }, { type: 'name', string: 'Frank' }])).body._id;
      const id = (await book([{ type: 'author', reference: author }])).body._id;
      expect((await get(id)).body.entity.author[0]).toMatchObject({ reference: author });
      const missing = await book([{ type: 'author', reference: 'aaaaaaaaaaaaaaaaaaaaaaaa' }]);
      expect(missing.status).toBe(400);
      expect(missing.body.errors[0].pointer).toBe('/1/reference');
    });

    it.each([
      ['string over 10 000 characters', { type: 'title', string: 'x'.repeat(10_001) }, '/1/string'],
      ['number given as a string', { type: 'pages', string: '12' }, '/1/string'],
      ['not a calendar date', { type: 'published', date: '2023-02-29' }, '/1/date'],
      ['date in another format', { type: 'published', date: '29.02.2024' }, '/1/date'],
      ['datetime without offset', { type: 'updated', datetime: '2024-05-01T12:30:00' }, '/1/datetime'],
      ['file without filetype', { type: 'scan', filename: 'a.pdf', filesize: 10 }, '/1/filetype'],
      ['file of 0 bytes', { type: 'scan', filename: 'a.pdf', filesize: 0, filetype: 'application/pdf' }, '/1/filesize'],
      ['two value fields', { type: 'title', string: 'a', number: 1 }, '/1/number'],
      ['no value field', { type: 'title' }, '/1/string'],
      ['language on a non-multilingual property', { type: 'title', string: 'a', language: 'en' }, '/1/language'],
      ['multilingual value without language', { type: 'label', string: 'a' }, '/1/language'],
    ])('refuses %s with 400 naming the field', async (_name, input, pointer) => {
      const res = await book([input]);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    });
  });

  describe('list, non-list, multilingual, overwrite (SPEC §3)', () => {
    it('list: a POST without _id adds a value beside the others', async () => {
      const id = (await book([{ type: 'tag', string: 'a' }])).body._id;
      await post(id, [{ type: 'tag', string: 'b' }]).expect(200);
      expect((await get(id)).body.entity.tag.map((v: { string: string }) => v.string)).toEqual(['a', 'b']);
    });

    it('non-list: a POST without _id replaces the value', async () => {
      const id = (await book([{ type: 'title', string: 'old' }])).body._id;
      const res = await post(id, [{ type: 'title', string: 'new' }]);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ _id: id, properties: [expect.objectContaining({ type: 'title', string: 'new' })] });
      expect((await get(id)).body.entity.title.map((v: { string: string }) => v.string)).toEqual(['new']);
    });

    it('multilingual non-list: one value per language, replaced per language', async () => {
      const id = (await book([{ type: 'label', string: 'Raamat', language: 'et' }, { type: 'label', string: 'Book', language: 'en' }])).body._id;
      await post(id, [{ type: 'label', string: 'A book', language: 'en' }]).expect(200);
      const labels = (await get(id)).body.entity.label.map((v: { string: string; language: string }) => `${v.language}:${v.string}`);
      expect(labels.sort()).toEqual(['en:A book', 'et:Raamat']);
    });

    it('multilingual list: several values per language', async () => {
      const id = (await book([{ type: 'note', string: 'a', language: 'en' }])).body._id;
      await post(id, [{ type: 'note', string: 'b', language: 'en' }]).expect(200);
      expect((await get(id)).body.entity.note).toHaveLength(2);
    });

    it('a POST with _id overwrites that value, keeping its _id; created becomes the new write', async () => {
      const created = (await book([{ type: 'tag', string: 'a' }, { type: 'tag', string: 'b' }])).body;
      const [a, b] = created.properties.tag;
      const res = await post(created._id, [{ _id: a._id, type: 'tag', string: 'A' }]);
      expect(res.status).toBe(200);
      expect(res.body.properties).toEqual([expect.objectContaining({ _id: a._id, type: 'tag', string: 'A' })]);
      const tags = (await get(created._id)).body.entity.tag;
      expect(tags.map((v: { _id: string; string: string }) => [v._id, v.string])).toEqual([
        [a._id, 'A'],
        [b._id, 'b'],
      ]);
    });

    it('an _id of another property, or of another entity, is 400 and changes nothing', async () => {
      const first = (await book([{ type: 'title', string: 'one' }, { type: 'tag', string: 't' }])).body;
      const other = (await book([{ type: 'title', string: 'two' }])).body;
      const wrongProperty = await post(first._id, [{ _id: first.properties.tag[0]._id, type: 'title', string: 'x' }]);
      expect(wrongProperty.status).toBe(400);
      const wrongEntity = await post(first._id, [{ _id: other.properties.title[0]._id, type: 'title', string: 'x' }]);
      expect(wrongEntity.status).toBe(400);
      expect((await get(first._id)).body.entity.title[0].string).toBe('one');
      expect((await get(other._id)).body.entity.title[0].string).toBe('two');
    });

    it('a POST is all-or-nothing: one bad value, nothing written', async () => {
      const id = (await book([{ type: 'title', string: 'kept' }])).body._id;
      const res = await post(id, [{ type: 'title', string: 'changed' }, { type: 'pages', number: 'many' }]);
      expect(res.status).toBe(400);
      const entity = (await get(id)).body.entity;
      expect(entity.title[0].string).toBe('kept');
      expect(entity.pages).toBeUndefined();
    });
  });

  describe('GET /api/{db}/entity/{id}', () => {
    it('answers {entity} with _id and every property', async () => {
      const id = (await book([{ type: 'title', string: 'T' }])).body._id;
      const res = await get(id);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['entity']);
      expect(res.body.entity._id).toBe(id);
      // The owner is listed at every level (right lists are cumulative); `_changed` says when it last changed.
      expect(Object.keys(res.body.entity).sort()).toEqual(['_changed', '_created', '_editor', '_expander', '_id', '_owner', '_type', '_viewer', 'title']);
    });

    it('honours props, including _created', async () => {
      const id = (await book([{ type: 'title', string: 'T' }, { type: 'pages', number: 3 }])).body._id;
      const res = await request(api.app).get(`${entityPath(id)}?props=title,_created`).set('Authorization', t.owner.auth);
      expect(Object.keys(res.body.entity).sort()).toEqual(['_created', '_id', 'title']);
    });

    it('404 for an unknown, malformed or other-database id', async () => {
      expect((await get('aaaaaaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
      expect((await get('not-an-id')).status).toBe(404);
      expect((await request(api.app).get(`/api/nosuchdb/entity/aaaaaaaaaaaaaaaaaaaaaaaa`)).status).toBe(404);
    });
  });

  describe('GET and DELETE /api/{db}/property/{id}', () => {
    it('GET returns the one value', async () => {
      const created = (await book([{ type: 'title', string: 'T' }])).body;
      const value = created.properties.title[0];
      const res = await request(api.app).get(`/api/${t.db}/property/${value._id}`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(value);
      expect(res.body.url).toBeUndefined();
    });

    it('DELETE removes that one value: 200 {deleted: true}, then 404', async () => {
      const created = (await book([{ type: 'tag', string: 'a' }, { type: 'tag', string: 'b' }])).body;
      const [a, b] = created.properties.tag;
      const res = await request(api.app).delete(`/api/${t.db}/property/${a._id}`).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true });
      expect((await get(created._id)).body.entity.tag.map((v: { _id: string }) => v._id)).toEqual([b._id]);
      expect((await request(api.app).get(`/api/${t.db}/property/${a._id}`).set('Authorization', t.owner.auth)).status).toBe(404);
    });

    it('_type and _created cannot be deleted, nor the last _owner', async () => {
      const created = (await book()).body;
      for (const name of ['_type', '_created', '_owner']) {
        const res = await request(api.app).delete(`/api/${t.db}/property/${created.properties[name][0]._id}`).set('Authorization', t.owner.auth);
        expect([name, res.status]).toEqual([name, 400]);
      }
      expect(Object.keys((await get(created._id)).body.entity)).toEqual(expect.arrayContaining(['_type', '_created', '_owner']));
    });
  });

  describe('DELETE /api/{db}/entity/{id}', () => {
    it('deletes: 200 {deleted: true}; then 404 for the entity and its values', async () => {
      const created = (await book([{ type: 'title', string: 'gone' }])).body;
      const res = await request(api.app).delete(entityPath(created._id)).set('Authorization', t.owner.auth);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true });
      expect((await get(created._id)).status).toBe(404);
      expect((await request(api.app).get(`/api/${t.db}/property/${created.properties.title[0]._id}`).set('Authorization', t.owner.auth)).status).toBe(404);
    });
  });

  describe('system properties (SPEC §4)', () => {
    it('_sharing accepts private, domain and public only', async () => {
      for (const sharing of ['private', 'domain', 'public']) expect((await book([{ type: '_sharing', string: sharing }])).status).toBe(201);
      expect((await book([{ type: '_sharing', string: 'everyone' }])).status).toBe(400);
    });

    it('_type cannot be changed after create', async () => {
      const id = (await book()).body._id;
      const res = await post(id, [{ type: '_type', reference: t.types.person }]);
      expect(res.status).toBe(400);
    });

    it('_created is read-only', async () => {
      expect((await book([{ type: '_created', datetime: '2020-01-01T00:00:00Z' }])).status).toBe(400);
    });

    it('_parent references a readable entity (list), _inheritrights is a boolean', async () => {
      const parent = (await book()).body._id;
      const res = await book([{ type: '_parent', reference: parent }, { type: '_inheritrights', boolean: true }]);
      expect(res.status).toBe(201);
      const entity = (await get(res.body._id)).body.entity;
      expect(entity._parent[0].reference).toBe(parent);
      expect(entity._inheritrights[0].boolean).toBe(true);
    });

    it('right lists reference persons only', async () => {
      const notAPerson = (await book()).body._id;
      expect((await book([{ type: '_viewer', reference: notAPerson }])).status).toBe(400);
      expect((await book([{ type: '_viewer', reference: t.owner.id }])).status).toBe(201);
    });

    it('_api_key: generated on a person, shown once, then "***"', async () => {
      const person = await t.newPerson('Key Holder');
      const res = await post(person.id, [{ type: '_api_key' }]);
      expect(res.status).toBe(200);
      const [key] = res.body.properties;
      expect(key.type).toBe('_api_key');
      expect(key.string).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const stored = (await get(person.id)).body.entity._api_key;
      expect(stored.map((v: { string: string }) => v.string)).toEqual(['***', '***']);
      const single = await request(api.app).get(`/api/${t.db}/property/${key._id}`).set('Authorization', t.owner.auth);
      expect(single.body.string).toBe('***');
    });

    it('_api_key is refused on non-persons and with a value', async () => {
      expect((await book([{ type: '_api_key' }])).status).toBe(400);
      const person = await t.newPerson('P');
      expect((await post(person.id, [{ type: '_api_key', string: 'my-own-key' }])).status).toBe(400);
    });
  });

  describe('property definitions (SPEC §5)', () => {
    const definition = (values: object[]) =>
      t.create([{ type: '_type', reference: t.types.property }, { type: '_parent', reference: bookType }, ...values]);

    it('refuses a definition with a bad type, a bad name, a duplicate name, or no parent type', async () => {
      expect((await definition([{ type: 'name', string: 'weight' }, { type: 'type', string: 'float' }])).status).toBe(400);
      expect((await definition([{ type: 'name', string: '9lives' }, { type: 'type', string: 'string' }])).status).toBe(400);
      expect((await definition([{ type: 'name', string: 'title' }, { type: 'type', string: 'string' }])).status).toBe(400);
      const orphan = await t.create([{ type: '_type', reference: t.types.property }, { type: 'name', string: 'x' }, { type: 'type', string: 'string' }]);
      expect(orphan.status).toBe(400);
    });

    it('a formula is parsed when the definition is written: 400 with the position of the error', async () => {
      const bad = await definition([{ type: 'name', string: 'total' }, { type: 'type', string: 'number' }, { type: 'formula', string: 'pages FOO' }]);
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].message).toMatch(/unknown function FOO at position 7/);
      const good = await definition([{ type: 'name', string: 'double' }, { type: 'type', string: 'number' }, { type: 'formula', string: 'pages 2 MULTIPLY' }]);
      expect(good.status).toBe(201);
      const refused = await book([{ type: 'double', number: 4 }]);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].message).toContain('computed by a formula');
    });

    it('a new definition governs the next write', async () => {
      expect((await book([{ type: 'isbn', string: '123' }])).status).toBe(400);
      expect((await definition([{ type: 'name', string: 'isbn' }, { type: 'type', string: 'string' }])).status).toBe(201);
      expect((await book([{ type: 'isbn', string: '123' }])).status).toBe(201);
    });
  });
});
