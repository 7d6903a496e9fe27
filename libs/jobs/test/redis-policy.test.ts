import { judgePolicy, type RedisRoleOf } from '../src/redis-policy';

/** Which eviction policy suits which Redis (issue 22, docs/deployment.md "Redis: the queue and the cache"). */
describe('judgePolicy', () => {
  const MB = 1024 * 1024;
  it.each<[RedisRoleOf, string, number, 'info' | 'warn', RegExp]>([
    // The queue's Redis (and one Redis for both) must keep every key.
    ['queue', 'noeviction', 0, 'info', /does not evict/],
    ['queue', 'noeviction', 512 * MB, 'info', /does not evict/],
    ['queue', 'allkeys-lru', 512 * MB, 'warn', /queue's Redis may evict keys \(maxmemory-policy allkeys-lru\)/],
    ['queue', 'volatile-lru', 0, 'warn', /may evict keys/],
    ['queue', 'volatile-ttl', 0, 'warn', /may evict keys/],
    ['queue', 'allkeys-random', 0, 'warn', /set maxmemory-policy noeviction there$/],
    ['both', 'noeviction', 0, 'info', /queue and cache Redis does not evict/],
    ['both', 'allkeys-lru', 0, 'warn', /put the cache on a Redis of its own \(CACHE_REDIS_URL\)$/],
    // The cache's Redis may lose anything; full and not evicting, its writes fail.
    ['cache', 'allkeys-lru', 256 * MB, 'info', /maxmemory-policy allkeys-lru/],
    ['cache', 'allkeys-lfu', 0, 'info', /allkeys-lfu/],
    ['cache', 'volatile-lru', 256 * MB, 'info', /volatile-lru/],
    ['cache', 'noeviction', 0, 'info', /noeviction/],
    ['cache', 'noeviction', 256 * MB, 'warn', /set maxmemory-policy allkeys-lru there$/],
  ])('%s Redis, %s, maxmemory %d: %s', (role, policy, maxmemory, level, message) => {
    const finding = judgePolicy(role, policy, maxmemory);
    expect(finding).toMatchObject({ level, policy, maxmemory });
    expect(finding.message).toMatch(message);
  });
});
