import { MongoNetworkError, MongoServerError, MongoTopologyClosedError } from 'mongodb';
import { queryFailure } from '../src/query-errors';

// Which engine errors are transient (answered 503 with Retry-After by the API, services/api/src/http/
// unavailable.ts) and which are the caller's: FerretDB's SQLite backend answers a write that meets
// another with SQLITE_BUSY, which must read as "busy, retry", never as a 500.
describe('queryFailure', () => {
  const server = (code: number, errmsg: string, codeName?: string) => new MongoServerError({ ok: 0, code, errmsg, ...(codeName ? { codeName } : {}) });
  it.each<[string, unknown, ReturnType<typeof queryFailure>]>([
    ['FerretDB SQLite busy', server(1, 'UpdateAll database is locked (5) (SQLITE_BUSY)'), 'busy'],
    ['SQLite locked without the code', server(1, 'database is locked'), 'busy'],
    ['maxTimeMS expired', server(50, 'operation exceeded time limit', 'MaxTimeMSExpired'), 'timeout'],
    ['exceeded time limit', server(262, 'ExceededTimeLimit'), 'timeout'],
    ['a codeName alone', server(0, 'too slow', 'MaxTimeMSExpired'), 'timeout'],
    ['not primary', server(10107, 'not primary'), 'unreachable'],
    ['shutting down', server(91, 'shutdown in progress'), 'unreachable'],
    ['primary stepped down', server(189, 'primary stepped down'), 'unreachable'],
    ['a lost connection', new MongoNetworkError('connection reset'), 'unreachable'],
    ['a closed client', new MongoTopologyClosedError(), 'unreachable'],
    ['a bad pattern (MongoDB)', server(51091, 'Regular expression is invalid: missing )'), 'invalid-pattern'],
    ['a bad pattern (FerretDB)', server(2, 'invalid regex'), 'invalid-pattern'],
    ['a duplicate key', server(11000, 'E11000 duplicate key error'), undefined],
    ['some other server error', server(14, 'type mismatch'), undefined],
    ['a bug of ours', new TypeError('x is undefined'), undefined],
    ['not an error', 'busy', undefined],
  ])('%s', (_name, error, expected) => {
    expect(queryFailure(error)).toBe(expected);
  });
});
