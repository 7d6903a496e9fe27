import request from 'supertest';
import { testApi, type TestApi } from './support';
import { testTenant, writtenOf, type TestTenant } from './tenant';

/**
 * Dates as Entu's web client sends them (issue 32 item 7, SPEC §7a), on the real stack: a `date`
 * or `datetime` value written as epoch ms (a JSON number) and filtered on by epoch-ms digits is
 * stored and returned as today's text. Its date picker gives the epoch ms of LOCAL midnight, so the
 * rows use Tallinn's (UTC+3 in May) and New York's (UTC−4). A number that is no midnight (or no
 * integer, or beyond years 0000–9999) is a 400 naming the field, and nothing is written.
 */

/** 2024-05-01 picked in Tallinn: 2024-04-30T21:00Z. */
const TALLINN_MAY_1 = 1714510800000;
/** 2024-05-02 picked in New York: 2024-05-02T04:00Z. */
const NEW_YORK_MAY_2 = 1714622400000;
/** 2024-05-01T09:50:00Z. */
const SEEN = 1714557000000;

type Entity = { _id: string } & Record<string, any>;

describe('dates and datetimes as epoch milliseconds (Entu’s web client)', () => {
  let api: TestApi;
  let t: TestTenant;
  let eventType: string;
  const id: Record<string, string> = {};

  const post = (path: string, body: object | string) => {
    const req = request(api.app).post(`/api/${t.db}/entity${path}`).set('Authorization', t.owner.auth);
    return typeof body === 'string' ? req.set('Content-Type', 'application/json').send(body) : req.send(body);
  };
  const get = (query: string) => request(api.app).get(`/api/${t.db}/entity?_type.reference=${eventType}&${query}`).set('Authorization', t.owner.auth);
  const read = async (entity: string): Promise<Entity> => {
    const res = await request(api.app).get(`/api/${t.db}/entity/${entity}`).set('Authorization', t.owner.auth);
    expect(res.status).toBe(200);
    return res.body.entity;
  };
  async function titles(query: string): Promise<string[]> {
    const res = await get(`${query}&sort=title.string`);
    expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({ status: 200, body: 'ok' });
    return res.body.entities.map((entity: Entity) => entity.title[0].string);
  }
  const count = async () => (await get('limit=0')).body.count as number;

  beforeAll(async () => {
    api = testApi({ RATE_LIMIT_MAX: '1000000' });
    t = await testTenant(api);
    eventType = await t.defineType('event', [
      { name: 'title', type: 'string' },
      { name: 'published', type: 'date' },
      { name: 'seen', type: 'datetime' },
      // A formula reads the stored day, however it was written.
      { name: 'day', type: 'string', formula: 'published' },
    ]);
    const event = async (title: string, values: object[]) => {
      const res = await post('', [{ type: '_type', reference: eventType }, { type: 'title', string: title }, ...values]);
      expect({ status: res.status, body: res.status === 201 ? 'ok' : res.body }).toEqual({ status: 201, body: 'ok' });
      return res.body;
    };
    const tallinn = await event('Tallinn', [
      { type: 'published', date: TALLINN_MAY_1 },
      { type: 'seen', datetime: SEEN },
    ]);
    id.tallinn = tallinn._id;
    // The create answer shows the values as stored.
    expect(tallinn.properties.published).toEqual([expect.objectContaining({ date: '2024-05-01' })]);
    expect(tallinn.properties.seen).toEqual([expect.objectContaining({ datetime: '2024-05-01T09:50:00.000Z' })]);
    id.newYork = (await event('New York', [{ type: 'published', date: NEW_YORK_MAY_2 }, { type: 'seen', datetime: '2024-05-02T08:00:00-04:00' }]))._id;
    // Text keeps working beside numbers.
    id.text = (await event('Text', [{ type: 'published', date: '2024-04-15' }, { type: 'seen', datetime: '2024-04-15T12:00:00Z' }]))._id;
  });

  afterAll(async () => {
    await t.close();
    await api.close();
  });

  it('stores and returns a date and a datetime written as epoch ms as today’s text', async () => {
    const tallinn = await read(id.tallinn!);
    expect(tallinn.published).toEqual([expect.objectContaining({ date: '2024-05-01' })]);
    expect(tallinn.seen).toEqual([expect.objectContaining({ datetime: '2024-05-01T09:50:00.000Z' })]);
    expect(tallinn.day).toEqual([expect.objectContaining({ string: '2024-05-01' })]);
    const newYork = await read(id.newYork!);
    expect(newYork.published).toEqual([expect.objectContaining({ date: '2024-05-02' })]);
    expect(newYork.day).toEqual([expect.objectContaining({ string: '2024-05-02' })]);
  });

  it('overwrites a value by `_id` with epoch ms, as the edit drawer does, answering the text', async () => {
    const target = (await post('', [{ type: '_type', reference: eventType }, { type: 'title', string: 'Edited' }, { type: 'published', date: '2020-01-01' }])).body;
    const valueId = target.properties.published[0]._id;
    // 2024-06-30 picked in Tallinn (2024-06-29T21:00Z), and a moment.
    const res = await post(`/${target._id}`, [
      { _id: valueId, type: 'published', date: 1719694800000 },
      { type: 'seen', datetime: 1719740000123 },
    ]);
    expect(res.status).toBe(200);
    expect(writtenOf(res.body, 'published')).toEqual([expect.objectContaining({ _id: valueId, date: '2024-06-30' })]);
    expect(writtenOf(res.body, 'seen')).toEqual([expect.objectContaining({ datetime: '2024-06-30T09:33:20.123Z' })]);
    const stored = await read(target._id);
    expect(stored.published).toEqual([expect.objectContaining({ _id: valueId, date: '2024-06-30' })]);
    expect(stored.day).toEqual([expect.objectContaining({ string: '2024-06-30' })]);
    await request(api.app).delete(`/api/${t.db}/entity/${target._id}`).set('Authorization', t.owner.auth).expect(200);
  });

  it.each<[string, string, string[]]>([
    ['the search form’s date range', `published.date.gte=${TALLINN_MAY_1}`, ['New York', 'Tallinn']],
    ['a date equal to a local midnight', `published.date=${NEW_YORK_MAY_2}`, ['New York']],
    ['a date before one', `published.date.lt=${TALLINN_MAY_1}`, ['Text']],
    ['a date not equal to one', `published.date.ne=${TALLINN_MAY_1}`, ['New York', 'Text']],
    ['an `in` list of local midnights', `published.date.in=${TALLINN_MAY_1},${NEW_YORK_MAY_2}`, ['New York', 'Tallinn']],
    ['an `in` list mixing ms and text', `published.date.in=${TALLINN_MAY_1},2024-04-15`, ['Tallinn', 'Text']],
    ['a date as text, as before', 'published.date.lte=2024-05-01', ['Tallinn', 'Text']],
    ['a datetime before a moment', `seen.datetime.lt=${SEEN}`, ['Text']],
    ['a datetime at a moment', `seen.datetime=${SEEN}`, ['Tallinn']],
    ['a datetime from a moment', `seen.datetime.gte=${SEEN}`, ['New York', 'Tallinn']],
    ['a datetime range in ms', `seen.datetime.gt=${SEEN}&seen.datetime.lte=${SEEN + 2 * 86_400_000}`, ['New York']],
  ])('filters by epoch-ms digits: %s', async (_, query, expected) => {
    expect(await titles(query)).toEqual(expected);
  });

  it.each<[string, object[] | string, string]>([
    ['a date that is no whole second (a moment)', [{ type: 'published', date: 1714557654321 }], '/0/date'],
    ['a date with a fraction of a millisecond', [{ type: 'published', date: 1714510800000.5 }], '/0/date'],
    ['a date after year 9999', [{ type: 'published', date: 253402254000000 }], '/0/date'],
    ['a date before year 0000', [{ type: 'published', date: -62167266001000 }], '/0/date'],
    ['a date too large for any calendar', [{ type: 'published', date: 1e300 }], '/0/date'],
    ['a date that is not finite (1e400 in the JSON)', '[{"type":"published","date":1e400}]', '/0/date'],
    ['a date as digits in a string', [{ type: 'published', date: String(TALLINN_MAY_1) }], '/0/date'],
    ['a date as a boolean', [{ type: 'published', date: true }], '/0/date'],
    ['a date as an operator object', [{ type: 'published', date: { $gt: 0 } }], '/0/date'],
    ['a datetime with a fraction of a millisecond', [{ type: 'seen', datetime: SEEN + 0.5 }], '/0/datetime'],
    ['a datetime after year 9999', [{ type: 'seen', datetime: 253402300800000 }], '/0/datetime'],
    ['a datetime beyond Date’s range', [{ type: 'seen', datetime: 8.64e15 + 1 }], '/0/datetime'],
    ['a datetime that is not finite (-1e400 in the JSON)', '[{"type":"seen","datetime":-1e400}]', '/0/datetime'],
  ])('refuses %s with a 400 naming the field, writing nothing', async (_, body, pointer) => {
    const before = await read(id.tallinn!);
    const res = await post(`/${id.tallinn}`, body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((error: { pointer: string }) => error.pointer)).toContain(pointer);
    const after = await read(id.tallinn!);
    expect({ published: after.published, seen: after.seen }).toEqual({ published: before.published, seen: before.seen });
  });

  it('refuses a new entity with a bad epoch-ms date: 400 naming it, no entity created', async () => {
    const before = await count();
    const res = await post('', [{ type: '_type', reference: eventType }, { type: 'title', string: 'Bad' }, { type: 'published', date: TALLINN_MAY_1 + 1 }]);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ pointer: '/2/date', message: expect.stringMatching(/epoch milliseconds of a midnight/) }]);
    expect(await count()).toBe(before);
  });

  it.each<[string, string]>([
    ['a date that is no whole second', `published.date.gte=1714557654321`],
    ['a date after year 9999', 'published.date=253402254000000'],
    ['a date with a fraction', 'published.date=1714510800000.5'],
    ['a date in exponent form', 'published.date=1.7145108e12'],
    ['a date as negative zero', 'published.date=-0'],
    ['a date with leading zeros', 'published.date=01714510800000'],
    ['a date in an `in` list', `published.date.in=${TALLINN_MAY_1},1714557654321`],
    ['a datetime with a fraction', `seen.datetime.lt=${SEEN}.5`],
    ['a datetime beyond year 9999', 'seen.datetime.gt=99999999999999999999'],
    ['a datetime as a prototype name', 'seen.datetime=__proto__'],
  ])('refuses a filter with %s: 400 naming the parameter', async (_, query) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ parameter: query.split('=')[0], message: expect.stringMatching(/epoch milliseconds/) }]);
  });
});
