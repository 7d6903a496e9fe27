import request from 'supertest';
import { api, asOwner, describeAfterwards, entityPath, expectFieldError, t, target, untouched, useHostileFixture } from './fixture';

/** Hostile input (SPEC §2, §3, §7, §11): query strings. The shared setup and guards are in `fixture.ts`. */
describe('hostile input: query strings', () => {
  useHostileFixture();

  // --- query strings --------------------------------------------------------------------------

  describe('query strings on GET /api/{db}/entity/{id}', () => {
    it.each<[string, string]>([
      ['props=$where', 'props'],
      ['props=', 'props'],
      ['props=a,,b', 'props'],
      ['props=title.strings', 'props'],
      ['props=title.string.x', 'props'],
      ['props=title.__proto__', 'props'],
      ['props=title,%24where', 'props'],
      ['props=__proto__', 'props'],
      ['props=a&props=b', 'props'],
      ['props=title&props=title', 'props'],
      ['props[]=a', 'props[]'],
      ['props[$ne]=x', 'props[$ne]'],
      ['foo=1', 'foo'],
      ['%24where=1', '$where'],
      ['props=title&limit=5', 'limit'],
    ])('?%s: 400 naming %s', async (query, parameter) => {
      const res = await untouched(() => asOwner(request(api.app).get(`${entityPath(target._id)}?${query}`)));
      expectFieldError(res, { parameter });
    });

    it(`props with ${101} names (over the documented 100): 400 naming props`, async () => {
      const props = Array.from({ length: 101 }, (_, i) => `p${i}`).join(',');
      expectFieldError(await untouched(() => asOwner(request(api.app).get(`${entityPath(target._id)}?props=${props}`))), { parameter: 'props' });
    });
  });

  describe('query strings on GET /api/{db}/entity (the list)', () => {
    const many = (n: number, item: (i: number) => string) => Array.from({ length: n }, (_, i) => item(i));
    it.each<[string, () => string, string]>([
      ['an operator in brackets', () => 'title.string[$ne]=x', 'title.string[$ne]'],
      ['a $-operator', () => 'title.string.$ne=x', 'title.string.$ne'],
      ['an unknown operator', () => 'title.string.where=x', 'title.string.where'],
      ['an operator the type does not take', () => 'title.string.gt=a', 'title.string.gt'],
      ['$where', () => '%24where=1', '$where'],
      ['__proto__ as a property', () => '__proto__.string=x', '__proto__.string'],
      ['constructor as a property no type defines', () => 'constructor.string=x', 'constructor.string'],
      ['a type mismatch with the definition', () => 'title.number=1', 'title.number'],
      ['a malformed reference', () => `_type.reference=${encodeURIComponent('{"$ne":null}')}`, '_type.reference'],
      ['1e400 as a number', () => 'pages.number=1e400', 'pages.number'],
      ['a hex number', () => 'pages.number=0x10', 'pages.number'],
      ['an impossible date', () => 'published.date=2024-02-30', 'published.date'],
      ['an impossible datetime', () => 'updated.datetime.gt=2024-05-01T25:00:00Z', 'updated.datetime.gt'],
      ['exists that is not a boolean', () => 'title.string.exists=maybe', 'title.string.exists'],
      ['in with 1001 values', () => `title.string.in=${many(1001, (i) => `v${i}`).join(',')}`, 'title.string.in'],
      ['an invalid regex', () => `title.string.regex=${encodeURIComponent('/(/')}`, 'title.string.regex'],
      ['a regex flag outside imsu', () => `title.string.regex=${encodeURIComponent('/a/g')}`, 'title.string.regex'],
      ['a regex with lookbehind', () => `title.string.regex=${encodeURIComponent('/(?<=a)b/')}`, 'title.string.regex'],
      ['a regex of 513 characters', () => `title.string.regex=${encodeURIComponent(`/${'a'.repeat(513)}/`)}`, 'title.string.regex'],
      ['a filter given twice', () => 'title.string=a&title.string=b', 'title.string'],
      ['limit given twice', () => 'limit=1&limit=2', 'limit'],
      ['a negative limit', () => 'limit=-1', 'limit'],
      ['a limit over 1000', () => 'limit=1001', 'limit'],
      ['a limit in exponent form', () => 'limit=1e3', 'limit'],
      ['a negative skip', () => 'skip=-1', 'skip'],
      ['a sort by a $-name', () => `sort=${encodeURIComponent('$where')}`, 'sort'],
      ['a sort by an object', () => 'sort[$natural]=1', 'sort[$natural]'],
      ['17 search terms', () => `q=${many(17, (i) => `term${i}`).join('+')}`, 'q'],
      ['props with a $-name', () => `props=${encodeURIComponent('$where')}`, 'props'],
      ['51 filters', () => many(51, (i) => `p${i}.string=x`).join('&'), 'filters'],
    ])('%s: 400 naming the parameter', async (_name, query, parameter) => {
      const res = await untouched(() => asOwner(request(api.app).get(`/api/${t.db}/entity?${query()}`)));
      expectFieldError(res, { parameter });
    });
  });

  describeAfterwards();
});
