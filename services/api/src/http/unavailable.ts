import { StorageUnavailableError } from '@entia/files';
import { isRedisUnavailable } from '@entia/jobs';
import { queryFailure } from '@entia/store';
import { problems, type HttpProblem } from './problem';

export type Dependency = 'mongodb' | 'redis' | 'storage';

/**
 * The one place that decides whether an error means a dependency is unreachable or too slow:
 * MongoDB not found within DEPENDENCY_TIMEOUT_MS, a connection lost or interrupted because the
 * server stopped answering, or not serving (stepping down); Redis gone or hung (directly, or
 * known so by the breaker); object storage refused, silent or failing. Each library recognises
 * its own client's errors; this names the dependency.
 */
export function unavailableDependency(error: unknown): Dependency | undefined {
  if (queryFailure(error) === 'unreachable') return 'mongodb';
  if (isRedisUnavailable(error)) return 'redis';
  if (error instanceof StorageUnavailableError) return 'storage';
  return undefined;
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
