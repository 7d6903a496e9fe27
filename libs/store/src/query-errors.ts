import { MongoServerError } from 'mongodb';

// MaxTimeMSExpired; and the codes both engines use for a pattern they cannot compile.
const TIMEOUT = new Set([50]);
const BAD_PATTERN = new Set([2, 51091, 51108]);

/**
 * Why an operation failed, when it is not a bug: out of time, a pattern the engine refuses, or the
 * engine too busy to take the write now (FerretDB's SQLite answers a concurrent write with
 * `database is locked`).
 */
export function queryFailure(error: unknown): 'timeout' | 'invalid-pattern' | 'busy' | undefined {
  if (!(error instanceof MongoServerError)) return undefined;
  if (TIMEOUT.has(Number(error.code)) || error.codeName === 'MaxTimeMSExpired') return 'timeout';
  if (/database is locked|SQLITE_BUSY/.test(error.message)) return 'busy';
  if (BAD_PATTERN.has(Number(error.code)) || /regular expression|regex/i.test(error.message)) return 'invalid-pattern';
  return undefined;
}
