import type { RedisBreaker } from './breaker';
import { isRedisUnavailable } from './breaker';

/**
 * Values kept in Redis for a fixed time, as JSON under `<prefix>:<name>:<key>`, for figures that may
 * be a little old rather than invalidated by writes (a database's statistics): unlike the
 * generation-keyed caches, nothing replaces an entry before it expires. What may be lost: put it
 * on the cache's Redis. Redis being away is no failure: `get` finds nothing and `set` keeps nothing.
 */
export class ExpiringCache<T> {
  constructor(
    private readonly breaker: RedisBreaker,
    private readonly prefix: string,
    private readonly name: string,
    private readonly ttlSeconds: number,
  ) {}

  private keyOf(key: string): string {
    return `${this.prefix}:${this.name}:${key}`;
  }

  /** The value kept under `key`, or undefined when there is none (never kept, expired, or Redis away). */
  async get(key: string): Promise<T | undefined> {
    try {
      const text = await this.breaker.run((redis) => redis.get(this.keyOf(key)));
      return text === null ? undefined : (JSON.parse(text) as T);
    } catch (error) {
      if (isRedisUnavailable(error)) return undefined;
      throw error;
    }
  }

  /** Keeps `value` under `key` for `ttlSeconds` (the cache's own by default), replacing what was there; nothing when Redis is away. */
  async set(key: string, value: T, ttlSeconds = this.ttlSeconds): Promise<void> {
    try {
      await this.breaker.run((redis) => redis.set(this.keyOf(key), JSON.stringify(value), 'EX', Math.max(1, Math.ceil(ttlSeconds))));
    } catch (error) {
      if (!isRedisUnavailable(error)) throw error;
    }
  }
}
