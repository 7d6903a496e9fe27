import type { Config } from './schema';

/**
 * The URL of the cache's own Redis (CACHE_REDIS_URL), or undefined when the cache shares REDIS_URL's
 * server: the setting's default is the word `REDIS_URL`, not a URL.
 */
export function cacheRedisUrl(config: Pick<Config, 'CACHE_REDIS_URL'>): string | undefined {
  return config.CACHE_REDIS_URL === 'REDIS_URL' ? undefined : config.CACHE_REDIS_URL;
}
