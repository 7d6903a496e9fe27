import { Redis, type RedisOptions } from 'ioredis';

/**
 * What a Redis connection is used for decides how it behaves while Redis is away:
 * - `command`: a request-path client (rate limits, cache, enqueueing). Every command, queued or
 *   sent, fails after `timeoutMs` (ioredis `commandTimeout`), and a queued one also after one
 *   failed reconnect attempt, so a dead or hung Redis is a quick error, never a request hanging
 *   until Redis returns. `RedisBreaker` then keeps request paths from waiting on it again.
 * - `worker`: a BullMQ worker's blocking connection, which BullMQ requires to retry forever.
 * Both reconnect by themselves when Redis comes back.
 */
export type RedisRole = 'command' | 'worker';

/** The default of DEPENDENCY_TIMEOUT_MS, for callers without a configuration (tools, benchmarks). */
const DEFAULT_TIMEOUT_MS = 1000;

/**
 * `onError` is required: ioredis emits an 'error' per failed reconnect attempt while Redis is down,
 * and an unhandled 'error' event would crash the process instead of letting /readyz report it.
 */
export function createRedis(url: string, role: RedisRole, onError: (error: Error) => void, timeoutMs = DEFAULT_TIMEOUT_MS, options: RedisOptions = {}): Redis {
  const common: RedisOptions = {
    connectTimeout: timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
    ...options,
  };
  const redis =
    role === 'worker'
      ? new Redis(url, { ...common, maxRetriesPerRequest: null })
      : new Redis(url, { ...common, maxRetriesPerRequest: 1, commandTimeout: timeoutMs });
  return redis
    .on('error', (error: Error) => {
      lastConnectError.set(redis, error);
      onError(error);
    })
    .on('ready', () => lastConnectError.delete(redis));
}

/** Why a connection's last connect failed, while it has not connected since. */
const lastConnectError = new WeakMap<Redis, Error>();

/**
 * A readiness check of a connection made by `createRedis`: its PING, or, while it is not
 * connected, why its last connect failed ("connect ECONNREFUSED …"), which says more than the
 * PING's own failure would ("Reached the max retries per request limit", "Command timed out").
 */
export function pingRedis(redis: Redis): Promise<unknown> {
  const failed = redisConnectError(redis);
  return failed ? Promise.reject(failed) : redis.ping();
}

/** Why a connection made by `createRedis` failed to connect last, while it is not connected. */
export function redisConnectError(redis: Redis): Error | undefined {
  return redis.status === 'ready' ? undefined : lastConnectError.get(redis);
}

/** Resolves once the connection is ready; rejects with why its last connect failed (or the signal's reason) if `signal` aborts first. */
export function whenRedisReady(redis: Redis, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      redis.off('ready', done);
      signal.removeEventListener('abort', abort);
      resolve();
    };
    const abort = () => {
      redis.off('ready', done);
      reject(redisConnectError(redis) ?? signal.reason);
    };
    if (redis.status === 'ready') return resolve();
    if (signal.aborted) return abort();
    redis.on('ready', done);
    signal.addEventListener('abort', abort, { once: true });
  });
}

/**
 * Why a connection will never serve again by itself: ioredis reconnects for ever with our retry
 * strategy, so `end` means it was disconnected. Only the process's own shutdown should do that.
 */
export function redisStuck(redis: Redis): string | undefined {
  return redis.status === 'end' ? 'the Redis connection was ended while in use' : undefined;
}
