import request from 'supertest';
import { api, asOwner, author, bookType, describeAfterwards, entityPath, expectFieldError, expectNoNewEntity, expectProblem, foreign, HEX24, other, postTarget, propertyPath, refusedEverywhere, t, target, untouched, useHostileFixture, type Watched } from './fixture';

/** Hostile input (SPEC §2, §3, §7, §11): ids, databases and paths. The shared setup and guards are in `fixture.ts`. */
describe('hostile input: ids, databases and paths', () => {
  useHostileFixture();

  // --- ids --------------------------------------------------------------------------------------

  describe('invalid ids', () => {
    const malformed = [
      'not-an-id',
      'AAAAAAAAAAAAAAAAAAAAAAAA',
      HEX24.slice(1),
      `${HEX24}a`,
      'gggggggggggggggggggggggg',
      encodeURIComponent('$where'),
      encodeURIComponent('{"$ne":null}'),
      encodeURIComponent(`ObjectId("${HEX24}")`),
      '%00',
      '%2e%2e',
      `${HEX24}%00`,
      encodeURIComponent(' '.repeat(24)),
      'x'.repeat(65),
      'f'.repeat(1000),
      'x'.repeat(8000),
    ];

    it.each(malformed.map((id) => [id.length > 40 ? `${id.slice(0, 12)}… (${id.length} chars)` : id, id]))(
      'malformed entity id in the path %s: 404 on GET, POST and DELETE',
      async (_label, id) => {
        expectProblem(await untouched(() => asOwner(request(api.app).get(entityPath(id)))), 404);
        expectProblem(await untouched(() => asOwner(request(api.app).post(entityPath(id))).send([{ type: 'title', string: 'x' }])), 404);
        expectProblem(await untouched(() => asOwner(request(api.app).delete(entityPath(id)))), 404);
      },
    );

    it.each(malformed.map((id) => [id.length > 40 ? `${id.slice(0, 12)}… (${id.length} chars)` : id, id]))(
      'malformed value id in the path %s: 404 on GET and DELETE /property',
      async (_label, id) => {
        expectProblem(await untouched(() => asOwner(request(api.app).get(propertyPath(id)))), 404);
        expectProblem(await untouched(() => asOwner(request(api.app).delete(propertyPath(id)))), 404);
      },
    );

    it.each([
      ['admin'],
      ['local'],
      ['config'],
      ['auth'],
      ['jobs'],
      ['NoSuchDb'],
      ['no$such'],
      ['x'.repeat(65)],
      ['d'.repeat(2000)],
    ].map(([db]) => [db!.length > 40 ? `${db!.slice(0, 6)}… (${db!.length} chars)` : db!, db!]))('database %s in the path: 404', async (_label, db) => {
      expectProblem(await untouched(() => asOwner(request(api.app).get(entityPath(target._id, db)))), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).post(`/api/${db}/entity`)).send([{ type: '_type', reference: bookType }])), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).post(entityPath(target._id, db))).send([{ type: 'title', string: 'x' }])), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).delete(propertyPath(target.properties.title![0]!._id, db)))), 404);
    });

    it('the control database in the path: 404', async () => {
      const db = api.deps.config.MONGODB_CONTROL_DB;
      expectProblem(await untouched(() => asOwner(request(api.app).get(entityPath(target._id, db)))), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).post(`/api/${db}/entity`)).send([{ type: 'title', string: 'x' }])), 404);
    });

    it('malformed percent-encoding in the path: 400 (the path cannot be read), not a 500', async () => {
      for (const path of [entityPath('%E0%A4%A'), entityPath('%'), propertyPath('%zz'), `/api/%ff%fe/entity/${HEX24}`]) {
        expectProblem(await untouched(() => asOwner(request(api.app).get(path))), 400);
      }
    });

    it.each<[string, object, string]>([
      ['24 non-hex characters', { type: 'author', reference: 'z'.repeat(24) }, '/reference'],
      ['upper-case hex', { type: 'author', reference: 'A'.repeat(24) }, '/reference'],
      ['23 characters', { type: 'author', reference: HEX24.slice(1) }, '/reference'],
      ['a number', { type: 'author', reference: 123 }, '/reference'],
      ['an empty string', { type: 'author', reference: '' }, '/reference'],
      ['an ObjectId() call', { type: 'author', reference: `ObjectId("${HEX24}")` }, '/reference'],
    ])('malformed reference in the body (%s): 400 naming it', async (_name, bad, field) => {
      await refusedEverywhere(bad, field);
    });

    it.each<[string, object, string]>([
      ['not hex', { _id: 'not-an-id', type: 'title', string: 'x' }, '/_id'],
      ['a number', { _id: 1, type: 'title', string: 'x' }, '/_id'],
      ['null', { _id: null, type: 'title', string: 'x' }, '/_id'],
    ])('malformed value _id in the body (%s): 400 naming it', async (_name, bad, field) => {
      await refusedEverywhere(bad, field);
    });

    it('a reference to a missing entity: 400 naming it', async () => {
      await refusedEverywhere({ type: 'author', reference: 'f'.repeat(24) }, '/reference');
    });

    it('an entity of ANOTHER database in the path: 404 on GET, POST, DELETE', async () => {
      const both: Watched[] = ['target', 'foreign'];
      expectProblem(await untouched(() => asOwner(request(api.app).get(entityPath(foreign._id))), both), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).post(entityPath(foreign._id))).send([{ type: 'title', string: 'x' }]), both), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).delete(entityPath(foreign._id))), both), 404);
      const value = foreign.properties.title![0]!._id;
      expectProblem(await untouched(() => asOwner(request(api.app).get(propertyPath(value))), both), 404);
      expectProblem(await untouched(() => asOwner(request(api.app).delete(propertyPath(value))), both), 404);
      await expectNoNewEntity(other);
    });

    it('an entity of ANOTHER database as a reference: 400 naming it', async () => {
      await refusedEverywhere({ type: 'author', reference: foreign._id }, '/reference');
      await refusedEverywhere({ type: '_parent', reference: foreign._id }, '/reference');
      await refusedEverywhere({ type: '_viewer', reference: other.owner.id }, '/reference');
    });

    it('a _type from ANOTHER database on create: 400 naming it', async () => {
      const res = await untouched(() => t.create([{ type: '_type', reference: other.types.entity }]));
      expectFieldError(res, { pointer: '/0/reference' });
      await expectNoNewEntity(t);
    });

    it('a value _id of another entity, another property, another database, or the entity itself: 400', async () => {
      await refusedEverywhere({ _id: author, type: 'title', string: 'x' }, '/_id');
      await refusedEverywhere({ _id: target.properties.tag![0]!._id, type: 'title', string: 'x' }, '/_id');
      await refusedEverywhere({ _id: foreign.properties.title![0]!._id, type: 'title', string: 'x' }, '/_id');
      await refusedEverywhere({ _id: target._id, type: 'title', string: 'x' }, '/_id');
      await refusedEverywhere({ _id: 'f'.repeat(24), type: 'title', string: 'x' }, '/_id');
      // A value of the author entity, named on the target.
      const authorName = (await asOwner(request(api.app).get(entityPath(author)))).body.entity.name[0]._id as string;
      const res = await untouched(() => postTarget([{ _id: authorName, type: 'title', string: 'x' }]), ['target', 'author']);
      expectFieldError(res, { pointer: '/0/_id' });
    });
  });

  // --- methods and paths --------------------------------------------------------------------

  describe('methods and paths', () => {
    it.each<[string, () => string, string[]]>([
      ['PUT /api/{db}/entity/{id}', () => `put ${entityPath(target._id)}`, ['GET', 'POST', 'DELETE']],
      ['PATCH /api/{db}/entity/{id}', () => `patch ${entityPath(target._id)}`, ['GET', 'POST', 'DELETE']],
      ['PUT /api/{db}/entity', () => `put /api/${t.db}/entity`, ['POST']],
      ['PATCH /api/{db}/entity', () => `patch /api/${t.db}/entity`, ['POST']],
      ['DELETE /api/{db}/entity', () => `delete /api/${t.db}/entity`, ['POST']],
      ['PUT /api/{db}/property/{id}', () => `put ${propertyPath(target.properties.title![0]!._id)}`, ['GET', 'DELETE']],
      ['POST /api/{db}/property/{id}', () => `post ${propertyPath(target.properties.title![0]!._id)}`, ['GET', 'DELETE']],
      ['PATCH /api/{db}/property/{id}', () => `patch ${propertyPath(target.properties.title![0]!._id)}`, ['GET', 'DELETE']],
    ])('%s: 405 with Allow, nothing written', async (_name, line, allowed) => {
      const [method, path] = line().split(' ') as ['put' | 'patch' | 'post' | 'delete', string];
      const res = await untouched(() => asOwner(request(api.app)[method](path)).send([{ type: 'title', string: 'x' }]));
      expectProblem(res, 405);
      const allow = String(res.headers.allow ?? '').split(/,\s*/);
      expect(allow).toEqual(expect.arrayContaining(allowed));
      expect(allow).not.toContain(method.toUpperCase());
    });

    it('very long and odd path segments: 404, never 500', async () => {
      for (const path of [
        `/api/${t.db}/entity/${target._id}/${'x'.repeat(4000)}`,
        `/api/${t.db}/${'e'.repeat(4000)}/${target._id}`,
        `/api/${t.db}/entity/${target._id}/..%2f..%2f`,
        `/api/${t.db}/entity/..%2f${target._id}`,
        `/api/${t.db}/entity/${target._id}%2f`,
      ]) {
        expectProblem(await untouched(() => asOwner(request(api.app).get(path))), 404);
      }
      expectProblem(await untouched(() => asOwner(request(api.app).post(`/api/${'d'.repeat(4000)}/entity`)).send([{ type: 'title', string: 'x' }])), 404);
    });
  });

  describeAfterwards();
});
