import type { Config } from '@entia/config';
import { ObjectStore } from '@entia/files';
import { SchemaCache } from '@entia/derive';
import { Generations, JobProducer, createRedis } from '@entia/jobs';
import { Store } from '@entia/store';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Everything the API talks to. Tests build the same thing against the real local stack. */
export interface Deps {
  config: Config;
  logger: Logger;
  store: Store;
  redis: Redis;
  jobs: JobProducer;
  objects: ObjectStore;
  /** Tokens that cached responses and schemas are keyed by; writes replace them. */
  generations: Generations;
  schemas: SchemaCache;
}

export function openDeps(config: Config, logger: Logger): Deps {
  const onRedisError = (error: Error) => logger.debug({ err: error }, 'redis connection error');
  const redis = createRedis(config.REDIS_URL, 'command', onRedisError);
  const store = Store.fromSettings(config);
  const generations = new Generations(redis, config.REDIS_PREFIX, config.CACHE_TTL_SECONDS);
  return {
    config,
    logger,
    store,
    redis,
    jobs: new JobProducer(redis, config.REDIS_PREFIX, onRedisError),
    objects: ObjectStore.fromSettings(config),
    generations,
    schemas: new SchemaCache(store, generations),
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await Promise.allSettled([deps.jobs.close(), deps.store.close()]);
  deps.redis.disconnect();
}
