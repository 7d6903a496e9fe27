import request from 'supertest';
import { api, asOwner, describeAfterwards, entityPath, expectFieldError, expectProblem, expectUnpolluted, type Field, HEX24, postRaw, refusedEverywhere, t, target, untouched, useHostileFixture } from './fixture';

/** Hostile input (SPEC §2, §3, §7, §11): $-operators, $-names and prototype keys where data is expected. The shared setup and guards are in `fixture.ts`. */
describe('hostile input: $-operators, $-names and prototype keys where data is expected', () => {
  useHostileFixture();

  // --- $-operators, $-names, prototype keys ---------------------------------------------------

  describe('query-operator objects and $-names where data is expected: 400 naming the field', () => {
    it.each<[string, object, string]>([
      ['{"string": {"$gt": ""}}', { type: 'title', string: { $gt: '' } }, '/string'],
      ['{"string": {"$ne": null}} on text', { type: 'summary', string: { $ne: null } }, '/string'],
      ['{"number": {"$gt": 0}}', { type: 'pages', number: { $gt: 0 } }, '/number'],
      ['{"reference": {"$ne": null}}', { type: 'author', reference: { $ne: null } }, '/reference'],
      ['{"reference": {"$oid": …}}', { type: 'author', reference: { $oid: HEX24 } }, '/reference'],
      ['{"reference": [id]}', { type: 'author', reference: [HEX24] }, '/reference'],
      ['{"type": {"$regex": ".*"}}', { type: { $regex: '.*' }, string: 'x' }, '/type'],
      ['{"type": ["title"]}', { type: ['title'], string: 'x' }, '/type'],
      ['{"_id": ["a"]}', { _id: ['a'], type: 'title', string: 'x' }, '/_id'],
      ['{"_id": {"$exists": true}}', { _id: { $exists: true }, type: 'title', string: 'x' }, '/_id'],
      ['{"date": {"$lt": "2030-01-01"}}', { type: 'published', date: { $lt: '2030-01-01' } }, '/date'],
      ['{"datetime": {"$gte": …}}', { type: 'updated', datetime: { $gte: '2020-01-01T00:00:00Z' } }, '/datetime'],
      ['{"language": {"$ne": null}}', { type: 'label', string: 'x', language: { $ne: null } }, '/language'],
      ['{"type": "$where"}', { type: '$where', string: 'x' }, '/type'],
      ['{"type": "$set"}', { type: '$set', string: 'x' }, '/type'],
      ['{"type": "title.string"} (a dotted path)', { type: 'title.string', string: 'x' }, '/type'],
      ['{"type": "_id"}', { type: '_id', reference: HEX24 }, '/type'],
      ['{"type": "__v"} (a stored bookkeeping field)', { type: '__v', number: 1 }, '/type'],
      ['{"type": "__read"}', { type: '__read', string: 'public' }, '/type'],
      ['{"type": "__proto__"}', { type: '__proto__', string: 'x' }, '/type'],
      ['{"type": "constructor"} (not defined by the type)', { type: 'constructor', string: 'x' }, '/type'],
      ['{"type": "toString"}', { type: 'toString', string: 'x' }, '/type'],
      ['{"type": "hasOwnProperty"}', { type: 'hasOwnProperty', string: 'x' }, '/type'],
      ['{"type": "title", "$set": {...}}', { type: 'title', string: 'x', $set: { title: 'y' } }, '/$set'],
      ['{"type": "title", "$where": "..."}', { type: 'title', string: 'x', $where: 'sleep(1000)' }, '/$where'],
      ['{"type": "title", "created": {...}}', { type: 'title', string: 'x', created: { at: '2000-01-01T00:00:00Z', by: HEX24 } }, '/created'],
      ['{"type": "title", "__v": 0}', { type: 'title', string: 'x', __v: 0 }, '/__v'],
    ])('%s', async (_name, bad, field) => {
      await refusedEverywhere(bad, field);
    });
  });

  describe('prototype pollution attempts', () => {
    it.each<[string, string, Field]>([
      ['a "__proto__" key in a value', '[{"type":"title","string":"x","__proto__":{"polluted":"yes"}}]', { pointer: '/0/__proto__' }],
      ['a "constructor" key in a value', '[{"type":"title","string":"x","constructor":{"prototype":{"polluted":"yes"}}}]', { pointer: '/0/constructor' }],
      ['a "prototype" key in a value', '[{"type":"title","string":"x","prototype":{"polluted":"yes"}}]', { pointer: '/0/prototype' }],
      ['"__proto__" as the value', '[{"type":"title","string":{"__proto__":{"polluted":"yes"}}}]', { pointer: '/0/string' }],
      ['a body that is a "__proto__" object', '{"__proto__":{"polluted":"yes"}}', { pointer: '' }],
      ['a body that is a "constructor" object', '{"constructor":{"prototype":{"polluted":"yes"}}}', { pointer: '' }],
      ['a "__proto__" item', '[{"__proto__":{"polluted":"yes","type":"title","string":"x"}}]', { pointer: '/0/type' }],
    ])('%s: 400, and Object.prototype stays clean', async (_name, json, field) => {
      const update = await untouched(() => postRaw(entityPath(target._id), json));
      expectFieldError(update, field);
      const create = await untouched(() => postRaw(`/api/${t.db}/entity`, json));
      expectProblem(create, 400);
      expectUnpolluted();
    });

    it.each([
      ['__proto__[polluted]=yes', '__proto__[polluted]'],
      ['constructor[prototype][polluted]=yes', 'constructor[prototype][polluted]'],
      ['__proto__=x', '__proto__'],
    ])('a query string %s on GET: 400 naming it, nothing polluted', async (query, parameter) => {
      const res = await untouched(() => asOwner(request(api.app).get(`${entityPath(target._id)}?${query}`)));
      expectFieldError(res, { parameter });
      expectUnpolluted();
    });
  });

  describeAfterwards();
});
