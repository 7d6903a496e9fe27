import { StorageUnavailableError } from '@entia/files';
import { isRedisUnavailable } from '@entia/jobs';
import { queryFailure } from '@entia/store';
import { problems, type HttpProblem } from './problem';

export type Dependency = 'mongodb' | 'redis' | 'storage';

/**
 * Each dependency's outage, as its own client reports it: MongoDB not found within
 * DEPENDENCY_TIMEOUT_MS, a connection lost or interrupted because the server stopped answering, or
 * not serving (stepping down) — the driver's classes only; Redis gone or hung — ioredis's, BullMQ's
 * and the breaker's errors only; object storage refused, silent or failing — wrapped by the object
 * store. None of them claims a bare socket error: a client hanging up mid-body fails with one too
 * (ECONNABORTED), and is no outage. At most one matches any error (the table test in
 * test/error-sources.test.ts).
 */
export const OUTAGES: Readonly<Record<Dependency, (error: unknown) => boolean>> = {
  mongodb: (error) => queryFailure(error) === 'unreachable',
  redis: isRedisUnavailable,
  storage: (error) => error instanceof StorageUnavailableError,
};

/** The one place that decides whether an error means a dependency is unreachable or too slow, and which. */
export function unavailableDependency(error: unknown): Dependency | undefined {
  return (Object.keys(OUTAGES) as Dependency[]).find((dependency) => OUTAGES[dependency](error));
}

const WHAT: Record<Dependency, string> = {
  mongodb: 'The database',
  redis: 'The cache and queue store',
  storage: 'File storage',
};

/** 503 with Retry-After, so clients back off and retry. */
export function unavailableProblem(dependency: Dependency): HttpProblem {
  return problems.unavailable(`${WHAT[dependency]} is unavailable; try again shortly.`);
}
