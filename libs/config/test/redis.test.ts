import { cacheRedisUrl } from '@entia/config';

describe('cacheRedisUrl', () => {
  it.each([
    ['REDIS_URL', undefined],
    ['redis://cache:6379', 'redis://cache:6379'],
    ['rediss://:secret@cache:6380/2', 'rediss://:secret@cache:6380/2'],
  ])('CACHE_REDIS_URL=%s: the cache\'s own Redis is %s', (setting, expected) => {
    expect(cacheRedisUrl({ CACHE_REDIS_URL: setting })).toBe(expected);
  });
});
