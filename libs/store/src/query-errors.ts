import { MongoServerError } from 'mongodb';

// MaxTimeMSExpired; and the codes both engines use for a pattern they cannot compile.
const TIMEOUT = new Set([50]);
const BAD_PATTERN = new Set([2, 51091, 51108]);

/** Why a query failed, when it is the query's fault rather than the server's. */
export function queryFailure(error: unknown): 'timeout' | 'invalid-pattern' | undefined {
  if (!(error instanceof MongoServerError)) return undefined;
  if (TIMEOUT.has(Number(error.code)) || error.codeName === 'MaxTimeMSExpired') return 'timeout';
  if (BAD_PATTERN.has(Number(error.code)) || /regular expression|regex/i.test(error.message)) return 'invalid-pattern';
  return undefined;
}
