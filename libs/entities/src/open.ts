import { cacheRedisUrl, type Config } from '@entia/config';
import type { ChangeRecord } from '@entia/domain';
import { ObjectStore } from '@entia/files';
import { ChangeLog, Generations, JobProducer, RedisBreaker, checkRedisRoles, createRedis } from '@entia/jobs';
import { EntityWriter, RedisLeases, Store, loggedConnection, type ConnectionEvents } from '@entia/store';
import type { EntitiesDeps } from './deps';
import { SchemaCache } from './schema';
import { TargetCache } from './target-cache';

type RedisClient = ReturnType<typeof createRedis>;

/** What opening the application logs to (a pino logger fits). */
export interface OpeningLog {
  debug(details: object, message: string): void;
  info(details: object | string, message?: string): void;
  warn(details: object | string, message?: string): void;
  error(details: object, message: string): void;
}

/** Which Redis changed state: REDIS_URL's, or CACHE_REDIS_URL's when it is a server of its own. */
export type RedisRole = 'redis' | 'cache';

export interface OpenOptions {
  /** What is told of MongoDB's first connect; by default the log's lines (a command that says it in its own words passes `{}`). */
  connection?: ConnectionEvents;
  /** Said when a Redis goes away and when it is back; by default one line each, in the API's words. */
  onRedisState?: (role: RedisRole, available: boolean, reason: string) => void;
  /** How long a write waits for its entity's lease; WRITE_WAIT_MS by default (tests shorten it). */
  writeWaitMs?: number;
}

/**
 * The application, opened once: every dependency the use cases take (`EntitiesDeps`), built from
 * the configuration, with the connections beneath them that an edge also watches (readiness,
 * liveness) and one `close`. The API, the worker, the admin CLI, the benchmark and the tests all
 * open it here and add only their own transport.
 */
export interface Entities extends EntitiesDeps {
  config: Config;
  objects: ObjectStore;
  /** REDIS_URL: what must not be lost (queues, leases, idempotency records, change logs, sign-in state). */
  redis: RedisClient;
  /** Request-path Redis calls go through it: while Redis is away they fail (or are skipped) at once. */
  breaker: RedisBreaker;
  /** CACHE_REDIS_URL: what may be lost (cached responses, generation tokens, rate-limit counts); `redis` when unset. */
  cacheRedis: RedisClient;
  cacheBreaker: RedisBreaker;
  /**
   * Closes the job producer (unless `jobs: false`: the worker skips it while Redis is away, as it
   * would wait for Redis forever) and the store, then stops the breakers and drops the Redis connections.
   */
  close(options?: { jobs?: boolean }): Promise<void>;
}

export function openEntities(config: Config, log: OpeningLog, options: OpenOptions = {}): Entities {
  const onRedisError = (error: Error) => log.debug({ err: error }, 'redis connection error');
  const onRedisState = options.onRedisState ?? redisStateLogger(log);
  const redis = createRedis(config.REDIS_URL, 'command', onRedisError, config.DEPENDENCY_TIMEOUT_MS);
  const breaker = new RedisBreaker(redis, { onChange: (available, reason) => onRedisState('redis', available, reason) });
  const cacheUrl = cacheRedisUrl(config);
  const cacheRedis = cacheUrl ? createRedis(cacheUrl, 'command', onRedisError, config.DEPENDENCY_TIMEOUT_MS) : redis;
  const cacheBreaker = cacheUrl ? new RedisBreaker(cacheRedis, { onChange: (available, reason) => onRedisState('cache', available, reason) }) : breaker;
  // Not awaited, never fatal: a warning when a Redis's eviction policy does not suit what it holds.
  void checkRedisRoles(redis, cacheRedis, log);
  const store = Store.fromSettings(config, options.connection ?? loggedConnection(log), (details, message) => log.warn(details, message));
  // On the cache's Redis, with the rate-limit counts: a cached GET reads the token, the entry and the count in one call.
  const generations = new Generations(cacheBreaker, config.REDIS_PREFIX, config.CACHE_TTL_SECONDS);
  const leases = new RedisLeases(breaker, config.REDIS_PREFIX, { ttlMs: config.WRITE_LEASE_MS, waitMs: options.writeWaitMs ?? config.WRITE_WAIT_MS });
  const jobs = new JobProducer(breaker, config.REDIS_PREFIX, onRedisError);
  return {
    config,
    store,
    writer: new EntityWriter(store, leases),
    leases,
    jobs,
    objects: ObjectStore.fromSettings(config),
    generations,
    schemas: new SchemaCache(store, generations),
    targets: new TargetCache(generations),
    changes: new ChangeLog<ChangeRecord>(breaker, config.REDIS_PREFIX, { maxEvents: config.CHANGE_LOG_MAX_EVENTS, maxAgeMs: config.CHANGE_LOG_MAX_AGE_SECONDS * 1000 }),
    logger: log,
    settings: { maxStringLength: config.MAX_STRING_LENGTH, maxFileBytes: config.MAX_FILE_BYTES, uploadUrlTtlSeconds: config.UPLOAD_URL_TTL_SECONDS },
    redis,
    breaker,
    cacheRedis,
    cacheBreaker,
    async close({ jobs: closeJobs = true } = {}) {
      await Promise.allSettled([closeJobs ? jobs.close() : undefined, store.close()]);
      breaker.stop();
      cacheBreaker.stop();
      redis.disconnect();
      if (cacheRedis !== redis) cacheRedis.disconnect();
    },
  };
}

/** One line when Redis goes away and one when it is back, rather than one per failed request. */
function redisStateLogger(log: OpeningLog): (role: RedisRole, available: boolean, reason: string) => void {
  return (role, available, reason) => {
    const which = role === 'cache' ? 'the cache\'s ' : '';
    if (available) log.info(`${which}redis is back: request paths use it again`);
    else log.warn({ reason }, `${which}redis unavailable: writes answer 503, rate limits and the cache are skipped`);
  };
}
