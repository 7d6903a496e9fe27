import type { Config } from '@entia/config';
import { ObjectStore } from '@entia/files';
import { JobProducer, createRedis } from '@entia/jobs';
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
}

export function openDeps(config: Config, logger: Logger): Deps {
  const onRedisError = (error: Error) => logger.debug({ err: error }, 'redis connection error');
  const redis = createRedis(config.REDIS_URL, 'command', onRedisError);
  return {
    config,
    logger,
    store: Store.fromSettings(config),
    redis,
    jobs: new JobProducer(redis, config.REDIS_PREFIX, onRedisError),
    objects: ObjectStore.fromSettings(config),
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await Promise.allSettled([deps.jobs.close(), deps.store.close()]);
  deps.redis.disconnect();
}
