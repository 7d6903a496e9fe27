import { Redis, type RedisOptions } from 'ioredis';

/**
 * What a Redis connection is used for decides how it behaves while Redis is away:
 * - `command`: a request-path client (rate limits, cache, enqueueing). A command waits for the
 *   connection only briefly (one reconnect attempt, at most `commandTimeout`), so a Redis outage is
 *   a quick error and then a 503, never a request hanging until Redis returns.
 * - `worker`: a BullMQ worker's blocking connection, which BullMQ requires to retry forever.
 * Both reconnect by themselves when Redis comes back.
 */
export type RedisRole = 'command' | 'worker';

/**
 * `onError` is required: ioredis emits an 'error' per failed reconnect attempt while Redis is down,
 * and an unhandled 'error' event would crash the process instead of letting /readyz report it.
 */
export function createRedis(url: string, role: RedisRole, onError: (error: Error) => void, options: RedisOptions = {}): Redis {
  const common: RedisOptions = {
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
    ...options,
  };
  const redis =
    role === 'worker'
      ? new Redis(url, { ...common, maxRetriesPerRequest: null })
      : new Redis(url, { ...common, maxRetriesPerRequest: 1, commandTimeout: 2000 });
  return redis.on('error', onError);
}

