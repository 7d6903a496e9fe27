import { loadConfig } from '@entia/config';
import { SchemaCache, TargetCache, type EntitiesDeps } from '@entia/entities';
import { ObjectStore } from '@entia/files';
import { ChangeLog, Generations, JobProducer, RedisBreaker, createRedis } from '@entia/jobs';
import { EntityWriter, RedisLeases, Store } from '@entia/store';
import { randomBytes } from 'node:crypto';

/**
 * The use cases' dependencies over the real stack, given explicitly as the API, the worker and the
 * benchmark give them; each test file gets its own Redis prefix and control database.
 */
// Short, so a test of a write waiting for its turn is quick.
const WAIT_MS = 300;

export function openDeps(): EntitiesDeps & { close(): Promise<void> } {
  const config = loadConfig({ ...process.env, REDIS_PREFIX: `t${randomBytes(6).toString('hex')}`, MONGODB_CONTROL_DB: `ctl_${randomBytes(6).toString('hex')}` });
  const redis = createRedis(config.REDIS_URL, 'command', () => undefined, config.DEPENDENCY_TIMEOUT_MS);
  const breaker = new RedisBreaker(redis);
  const store = Store.fromSettings(config);
  const generations = new Generations(breaker, config.REDIS_PREFIX, config.CACHE_TTL_SECONDS);
  const leases = new RedisLeases(breaker, config.REDIS_PREFIX, { ttlMs: config.WRITE_LEASE_MS, waitMs: WAIT_MS });
  const jobs = new JobProducer(breaker, config.REDIS_PREFIX, () => undefined);
  return {
    store,
    writer: new EntityWriter(store, leases),
    leases,
    jobs,
    generations,
    schemas: new SchemaCache(store, generations),
    targets: new TargetCache(generations),
    changes: new ChangeLog(breaker, config.REDIS_PREFIX, { maxEvents: config.CHANGE_LOG_MAX_EVENTS, maxAgeMs: config.CHANGE_LOG_MAX_AGE_SECONDS * 1000 }),
    objects: ObjectStore.fromSettings(config),
    logger: { error: () => undefined },
    settings: { maxStringLength: config.MAX_STRING_LENGTH, maxFileBytes: config.MAX_FILE_BYTES, uploadUrlTtlSeconds: config.UPLOAD_URL_TTL_SECONDS },
    async close() {
      await Promise.allSettled([jobs.close(), store.close()]);
      redis.disconnect();
    },
  };
}
