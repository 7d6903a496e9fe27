import { commandShape, queryShape, scrubbedAttributes, withoutCredentials } from '@entia/telemetry';
import { ObjectId } from 'mongodb';

const SERVER = 1;
const CLIENT = 2;
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwZXJzb24ifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';

describe('what a span may carry (issue 22)', () => {
  it.each([
    ['names kept, values gone', 'a=1&b=x&b=y', 'a=?&b=?&b=?'],
    ['a credential in the query', 'ticket=s3cr3t-ticket&code=abc', 'ticket=?&code=?'],
    ['a flag without a value', 'debug', 'debug=?'],
    ['empty pairs', 'a=1&&b=2&', 'a=?&b=?'],
    ['nothing', '', ''],
  ])('queryShape: %s', (_case, query, shape) => {
    expect(queryShape(query)).toBe(shape);
  });

  it.each([
    ['a bearer API key', 'refused: Bearer ek_live_0123456789abcdef', 'refused: Bearer [redacted]'],
    ['a lower-case bearer', 'authorization: bearer abc.def', 'authorization: Bearer [redacted]'],
    ['a JWT alone', `token ${JWT} expired`, 'token [redacted] expired'],
    ['a MongoDB URL with a password', 'connect mongodb://entia:pa55word@db:27017/x failed', 'connect mongodb://entia:[redacted]@db:27017/x failed'],
    ['a Redis URL with a password only', 'redis://:hunter2@cache:6379', 'redis://:[redacted]@cache:6379'],
    ['a URL without a password', 'http://user@host/path and mongodb://db:27017', 'http://user@host/path and mongodb://db:27017'],
    ['plain text', 'E11000 duplicate key', 'E11000 duplicate key'],
  ])('withoutCredentials: %s', (_case, text, expected) => {
    expect(withoutCredentials(text)).toBe(expected);
  });

  it.each([
    ['an incoming query: its shape', SERVER, { 'url.query': 'ticket=abc&limit=10' }, { 'url.query': 'ticket=?&limit=?' }],
    ['an incoming URL: its query shape', SERVER, { 'url.full': 'http://api/x?code=abc' }, { 'url.full': 'http://api/x?code=?' }],
    ['an incoming path: kept', SERVER, { 'url.path': '/api/db1/entity/abc' }, {}],
    [
      'an outgoing URL (S3, a webhook): its origin only',
      CLIENT,
      { 'url.full': 'http://127.0.0.1:9000/entia/db1/file?X-Amz-Signature=abc&X-Amz-Credential=key' },
      { 'url.full': 'http://127.0.0.1:9000' },
    ],
    ['a webhook URL whose path is its secret', CLIENT, { 'url.full': 'https://hooks.example/services/T0/B0/s3cr3t' }, { 'url.full': 'https://hooks.example' }],
    ['an outgoing URL that does not parse', CLIENT, { 'url.full': 'not a url' }, { 'url.full': '[redacted]' }],
    ['a bearer token in any string', CLIENT, { 'exception.message': 'Bearer abc', 'db.query.text': 'get' }, { 'exception.message': 'Bearer [redacted]' }],
    ['numbers, booleans and arrays: kept', SERVER, { 'http.response.status_code': 200, ok: true, list: ['Bearer x'] }, {}],
    ['nothing to change', SERVER, { 'http.route': '/api/:db/entity', 'url.path': '/api/x' }, {}],
  ])('scrubbedAttributes: %s', (_case, kind, attributes, changes) => {
    expect(scrubbedAttributes(kind, attributes)).toEqual(changes);
  });

  it.each([
    ['values become ?', { find: 'entities', filter: { _id: 'abc', email: 'a@b.c' }, limit: 1 }, { find: '?', filter: { _id: '?', email: '?' }, limit: '?' }],
    ['an ObjectId is a value', { filter: { _id: new ObjectId() } }, { filter: { _id: '?' } }],
    ['a date is a value', { filter: { at: { $lt: new Date() } } }, { filter: { at: { $lt: '?' } } }],
    ['bytes are a value', { saslStart: 1, payload: Buffer.from('n,,n=entia,r=secret') }, { saslStart: '?', payload: '?' }],
    ['an array: its first element, and whether more follow', { insert: 'e', documents: [{ a: 1 }, { a: 2 }] }, { insert: '?', documents: [{ a: '?' }, '…'] }],
    ['an empty array', { $in: [] }, { $in: [] }],
    ['a value alone', 'x', '?'],
  ])('commandShape: %s', (_case, command, shape) => {
    expect(JSON.parse(commandShape(command))).toEqual(shape);
  });

  it('commandShape bounds depth and width', () => {
    const deep = { a: { b: { c: { d: { e: { f: { g: 1 } } } } } } };
    expect(commandShape(deep)).toBe('{"a":{"b":{"c":{"d":{"e":{"f":"…"}}}}}}');
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const shape = JSON.parse(commandShape(wide)) as Record<string, unknown>;
    expect(Object.keys(shape)).toHaveLength(33);
    expect(shape['…']).toBe(8);
  });
});
