import type { Redis } from 'ioredis';

/**
 * What a Redis holds for Entia (docs/deployment.md, "Redis: the queue and the cache"):
 * - `queue` (REDIS_URL): queues, leases, idempotency records, change logs… whose loss breaks
 *   integrity: it must not evict (`maxmemory-policy noeviction`);
 * - `cache` (CACHE_REDIS_URL): cached responses, generation tokens, rate-limit counters, all of which
 *   may be lost: it should evict (`allkeys-lru`), else writes to it fail once it is full;
 * - `both`: one server for the two (CACHE_REDIS_URL unset): the queue's needs win.
 */
export type RedisRoleOf = 'queue' | 'cache' | 'both';

/** What `checkEvictionPolicy` found: a level to log at and one line saying why. */
export interface PolicyFinding {
  level: 'info' | 'warn';
  message: string;
  policy?: string;
  maxmemory?: number;
}

/**
 * The finding for a Redis of `role` with `policy` and `maxmemory` (bytes, 0 = no limit). Pure: the
 * rule apart from the asking, tested on its own.
 */
export function judgePolicy(role: RedisRoleOf, policy: string, maxmemory: number): PolicyFinding {
  const facts = { policy, maxmemory };
  if (role !== 'cache') {
    if (policy === 'noeviction') return { level: 'info', message: `the ${role === 'both' ? 'queue and cache' : 'queue'} Redis does not evict (maxmemory-policy noeviction)`, ...facts };
    return {
      level: 'warn',
      message: `the queue's Redis may evict keys (maxmemory-policy ${policy}): jobs, write leases and idempotency records could be lost; set maxmemory-policy noeviction there${role === 'both' ? ', and put the cache on a Redis of its own (CACHE_REDIS_URL)' : ''}`,
      ...facts,
    };
  }
  if (policy === 'noeviction' && maxmemory > 0) {
    return {
      level: 'warn',
      message: 'the cache\'s Redis has a maxmemory and does not evict (maxmemory-policy noeviction): once full, caching and rate limiting fail and writes are refused with 503; set maxmemory-policy allkeys-lru there',
      ...facts,
    };
  }
  return { level: 'info', message: `the cache's Redis has maxmemory-policy ${policy}`, ...facts };
}

/**
 * Asks `redis` for its eviction policy (CONFIG GET) and judges it for `role`. Managed Redis services
 * often refuse CONFIG: that is an info finding, never a failure — nothing here stops a process.
 */
export async function checkEvictionPolicy(redis: Redis, role: RedisRoleOf): Promise<PolicyFinding> {
  let policy: string | undefined;
  let maxmemory = 0;
  try {
    const answer = (await redis.call('CONFIG', 'GET', 'maxmemory*')) as string[];
    const found = new Map<string, string>();
    for (let i = 0; i + 1 < answer.length; i += 2) found.set(String(answer[i]), String(answer[i + 1]));
    policy = found.get('maxmemory-policy');
    maxmemory = Number(found.get('maxmemory') ?? 0) || 0;
  } catch (err) {
    return { level: 'info', message: `the ${role === 'cache' ? 'cache\'s' : 'queue\'s'} Redis eviction policy could not be checked (${(err as Error).message.split('\n')[0]}): make sure it is as docs/deployment.md says` };
  }
  if (policy === undefined) return { level: 'info', message: `the ${role === 'cache' ? 'cache\'s' : 'queue\'s'} Redis did not name its eviction policy: make sure it is as docs/deployment.md says` };
  return judgePolicy(role, policy, maxmemory);
}

interface PolicyLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * At start, one line per Redis on its eviction policy: a warning when it does not suit what it
 * holds. `cache` is the same client as `queue` when CACHE_REDIS_URL is unset. Never throws.
 */
export async function checkRedisRoles(queue: Redis, cache: Redis, logger: PolicyLogger): Promise<void> {
  const checks: [Redis, RedisRoleOf][] = queue === cache ? [[queue, 'both']] : [[queue, 'queue'], [cache, 'cache']];
  await Promise.all(
    checks.map(async ([redis, role]) => {
      const { level, message, ...facts } = await checkEvictionPolicy(redis, role);
      logger[level]({ redis: role, ...facts }, message);
    }),
  );
}
