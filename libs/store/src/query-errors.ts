import { MongoBulkWriteError, MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';

// MaxTimeMSExpired, ExceededTimeLimit; and the codes both engines use for a pattern they cannot compile.
const TIMEOUT = new Set([50, 262]);
const BAD_PATTERN = new Set([2, 51091, 51108]);
// The server is there but cannot serve now: stepping down, shutting down, no primary (the codes
// the retryable-reads specification lists besides the network ones).
const NOT_SERVING = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);

/**
 * Whether the connection was lost while an operation was under way, so that it may or may not have
 * taken effect. insertMany wraps what stopped it in a bulk write error: unwrapped here, once.
 */
export function connectionLost(error: unknown): boolean {
  return error instanceof MongoNetworkError || (error instanceof MongoBulkWriteError && error.errorResponse instanceof MongoNetworkError);
}

const DUPLICATE_KEY = 11000;

/** Whether a write failed only because what it inserts is there already (every failure of a bulk insert, too). */
export function duplicateKey(error: unknown): boolean {
  if (error instanceof MongoBulkWriteError) {
    const failures = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    return failures.length > 0 && failures.every((failure) => failure.code === DUPLICATE_KEY);
  }
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

/**
 * Why an operation failed, when it is not a bug: out of time, a pattern the engine refuses, the
 * engine too busy to take the write now (FerretDB's SQLite answers a concurrent write with
 * `database is locked`), or the server unreachable (not found within DEPENDENCY_TIMEOUT_MS, a
 * connection lost or interrupted because the server stopped answering, or not serving).
 */
export function queryFailure(error: unknown): 'timeout' | 'invalid-pattern' | 'busy' | 'unreachable' | undefined {
  // insertMany wraps what stopped it (a lost connection, say) in a bulk write error.
  if (error instanceof MongoBulkWriteError && error.errorResponse instanceof Error) return queryFailure(error.errorResponse);
  if (error instanceof MongoNetworkError || error instanceof MongoServerSelectionError || error instanceof MongoTopologyClosedError) return 'unreachable';
  if (!(error instanceof MongoServerError)) return undefined;
  const code = Number(error.code);
  if (TIMEOUT.has(code) || error.codeName === 'MaxTimeMSExpired') return 'timeout';
  if (NOT_SERVING.has(code)) return 'unreachable';
  if (/database is locked|SQLITE_BUSY/.test(error.message)) return 'busy';
  if (BAD_PATTERN.has(code) || /regular expression|regex/i.test(error.message)) return 'invalid-pattern';
  return undefined;
}
