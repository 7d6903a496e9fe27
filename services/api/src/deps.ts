import { cacheRedisUrl, parseJwtSecrets, type Config } from '@entia/config';
import { INVITATION_SECONDS, type ChangeRecord } from '@entia/domain';
import { ObjectStore } from '@entia/files';
import { InvitationKeys, SchemaCache, TargetCache, type EntitiesDeps, type InvitationRecord } from '@entia/entities';
import { ChangeLog, Generations, JobProducer, RedisBreaker, checkRedisRoles, createRedis } from '@entia/jobs';
import { EntityWriter, RedisLeases, Store, loggedConnection, type ConnectionEvents } from '@entia/store';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { SingleUse } from './auth/single-use';
import { ChangeHub } from './changes/hub';

/**
 * Everything the API talks to: what the use cases need (`EntitiesDeps`) and the HTTP layer's own.
 * Tests build the same thing against the real local stack.
 */
export interface Deps extends EntitiesDeps {
  config: Config;
  logger: Logger;
  /** REDIS_URL: what must not be lost (queues, leases, idempotency records, change logs, sign-in state). */
  redis: Redis;
  /** Request-path Redis calls go through it: while Redis is away they fail (or are skipped) at once. */
  breaker: RedisBreaker;
  /** CACHE_REDIS_URL: what may be lost (cached responses, generation tokens, rate-limit counts); `redis` when unset. */
  cacheRedis: Redis;
  cacheBreaker: RedisBreaker;
  objects: ObjectStore;
  /** Reads the change logs for this process's change streams. */
  hub: ChangeHub;
}

/**
 * `connection`: what is told of MongoDB's first connect; by default the service's log lines (a
 * command that says it in its own words passes `{}`).
 */
export function openDeps(config: Config, logger: Logger, connection: ConnectionEvents = loggedConnection(logger)): Deps {
  const onRedisError = (error: Error) => logger.debug({ err: error }, 'redis connection error');
  const redis = createRedis(config.REDIS_URL, 'command', onRedisError, config.DEPENDENCY_TIMEOUT_MS);
  const breaker = new RedisBreaker(redis, { onChange: redisStateLogger(logger) });
  const cacheUrl = cacheRedisUrl(config);
  const cacheRedis = cacheUrl ? createRedis(cacheUrl, 'command', onRedisError, config.DEPENDENCY_TIMEOUT_MS) : redis;
  const cacheBreaker = cacheUrl ? new RedisBreaker(cacheRedis, { onChange: redisStateLogger(logger, 'the cache\'s ') }) : breaker;
  // Not awaited, never fatal: a warning when a Redis's eviction policy does not suit what it holds.
  void checkRedisRoles(redis, cacheRedis, logger);
  const store = Store.fromSettings(config, connection);
  // On the cache's Redis, with the rate-limit counts: a cached GET reads the token, the entry and the count in one call.
  const generations = new Generations(cacheBreaker, config.REDIS_PREFIX, config.CACHE_TTL_SECONDS);
  const changes = changeLogOf(config, breaker);
  const leases = new RedisLeases(breaker, config.REDIS_PREFIX, { ttlMs: config.WRITE_LEASE_MS, waitMs: config.WRITE_WAIT_MS });
  return {
    config,
    logger,
    store,
    writer: new EntityWriter(store, leases),
    leases,
    redis,
    breaker,
    cacheRedis,
    cacheBreaker,
    jobs: new JobProducer(breaker, config.REDIS_PREFIX, onRedisError),
    objects: ObjectStore.fromSettings(config),
    generations,
    schemas: new SchemaCache(store, generations),
    targets: new TargetCache(generations),
    changes,
    hub: new ChangeHub(changes, config.REDIS_URL, logger, config.DEPENDENCY_TIMEOUT_MS),
    settings: { maxStringLength: config.MAX_STRING_LENGTH, maxFileBytes: config.MAX_FILE_BYTES, uploadUrlTtlSeconds: config.UPLOAD_URL_TTL_SECONDS },
    // Invitations (issue 33, item 5): signed with keys derived from the token secrets, each kept in
    // Redis (its token's hash only) until used or a day has passed.
    invitations: {
      keys: new InvitationKeys(parseJwtSecrets(config)),
      pending: new SingleUse<InvitationRecord>(breaker, `${config.REDIS_PREFIX}:invitation`, INVITATION_SECONDS),
    },
  };
}

/** The change logs (issue 18), as the API and the worker both publish to them. */
function changeLogOf(config: Config, breaker: RedisBreaker): ChangeLog<ChangeRecord> {
  return new ChangeLog(breaker, config.REDIS_PREFIX, { maxEvents: config.CHANGE_LOG_MAX_EVENTS, maxAgeMs: config.CHANGE_LOG_MAX_AGE_SECONDS * 1000 });
}

/** One line when Redis goes away and one when it is back, rather than one per failed request. */
function redisStateLogger(logger: Logger, which = ''): (available: boolean, reason: string) => void {
  return (available, reason) =>
    available ? logger.info(`${which}redis is back: request paths use it again`) : logger.warn({ reason }, `${which}redis unavailable: writes answer 503, rate limits and the cache are skipped`);
}

export async function closeDeps(deps: Deps): Promise<void> {
  await Promise.allSettled([deps.jobs.close(), deps.store.close(), deps.hub.close()]);
  deps.breaker.stop();
  deps.cacheBreaker.stop();
  deps.redis.disconnect();
  if (deps.cacheRedis !== deps.redis) deps.cacheRedis.disconnect();
}
