import { CACHE_POLICIES, boundOf, boundedCache, type CacheName, type CachePolicy } from '@entia/domain';
import { REGEXES } from '../src/query/match';

/**
 * The one cache policy (caches.ts), tested once for every cache it names: the bound holds with the
 * least recently used going first, an entry is trusted for its ttl and not after, and a loading
 * cache shares concurrent loads. Each cache's own test only checks that it is built from its row
 * (`boundOf`): the regex cache's is here, the others' beside them.
 */

/** What a `'configured'` ttl is set to here (the setting's value does not matter to the policy). */
const SETTING_MS = 60_000;

/** A clock the test moves (lru-cache reads a start of 0 as "no start": it begins later). */
const clockAt = (t: number) => ({ t, now() { return this.t; } });

const ROWS = Object.entries(CACHE_POLICIES) as [CacheName, CachePolicy][];

describe.each(ROWS)('the %s cache', (name, policy) => {
  const ttl = policy.ttl === 'configured' ? SETTING_MS : policy.ttl;
  const build = (clock = clockAt(1_000)) => boundedCache<number, string>(name, { ttl: policy.ttl === 'configured' ? SETTING_MS : undefined, clock });

  it(`keeps at most ${policy.max} entries, the least recently used going first`, () => {
    const cache = build();
    for (let key = 0; key < policy.max; key++) cache.set(key, `${key}`);
    expect(cache.get(0)).toBe('0');
    cache.set(policy.max, 'one more');
    expect(cache.size).toBe(policy.max);
    expect([cache.has(0), cache.has(1), cache.has(policy.max)]).toEqual([true, false, true]);
  });

  if (ttl === undefined) {
    it('never lets an entry go stale by age', () => {
      const clock = clockAt(1_000);
      const cache = build(clock);
      cache.set(1, 'kept');
      clock.t += 365 * 24 * 3600 * 1000;
      expect(cache.get(1)).toBe('kept');
    });
  } else {
    it(`trusts an entry for ${ttl} ms and not a millisecond longer`, () => {
      const clock = clockAt(1_000);
      const cache = build(clock);
      cache.set(1, 'fresh');
      clock.t += ttl;
      expect(cache.get(1)).toBe('fresh');
      clock.t += 1;
      expect(cache.get(1)).toBeUndefined();
    });
  }
});

describe('boundedCache', () => {
  it('refuses to build a cache whose entries go stale without a ttl, or with a ttl lru-cache would misread', () => {
    expect(() => boundedCache('key-liveness')).toThrow('needs a ttl');
    expect(() => boundedCache('key-liveness', { ttl: 0 })).toThrow('above 0');
    expect(() => boundedCache('webhooks', { ttl: 1.5 })).toThrow('above 0');
    expect(boundOf(boundedCache('key-liveness', { ttl: 1_000 }))).toEqual({ max: CACHE_POLICIES['key-liveness'].max, ttl: 1_000, loads: false });
  });

  it('takes a smaller bound than the policy\'s, never a larger one', () => {
    expect(boundedCache('schemas', { max: 2 }).max).toBe(2);
    expect(boundedCache('schemas', { max: 1_000_000 }).max).toBe(CACHE_POLICIES.schemas.max);
  });

  it('shares one load among concurrent reads of a key, and keeps its answer', async () => {
    const loads: string[] = [];
    const cache = boundedCache<string, string>('database-records', { load: async (key) => (loads.push(key), `record of ${key}`) });
    expect(await Promise.all([cache.fetch('a'), cache.fetch('a'), cache.fetch('b')])).toEqual(['record of a', 'record of a', 'record of b']);
    expect(await cache.fetch('a')).toBe('record of a');
    expect(loads).toEqual(['a', 'b']);
    expect(boundOf(cache).loads).toBe(true);
  });

  it('keeps nothing of a load that found nothing, or failed (each reader is told)', async () => {
    let calls = 0;
    const cache = boundedCache<string, string>('database-records', {
      load: async (key) => {
        calls++;
        if (key === 'broken') throw new Error('unreachable');
        return undefined;
      },
    });
    expect(await cache.fetch('missing')).toBeUndefined();
    expect(await cache.fetch('missing')).toBeUndefined();
    const failed = await Promise.allSettled([cache.fetch('broken'), cache.fetch('broken')]);
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(cache.size).toBe(0);
    expect(calls).toBe(3);
  });

  it('a load whose entry is pushed out meanwhile still answers its readers', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const cache = boundedCache<string, string>('schemas', { max: 1, load: async (key) => (key === 'slow' ? (await held, 'slow answer') : 'quick answer') });
    const slow = cache.fetch('slow');
    expect(await cache.fetch('quick')).toBe('quick answer');
    release();
    expect(await slow).toBe('slow answer');
  });

  it('passes each read\'s context to the load', async () => {
    const cache = boundedCache<string, string, { token: string }>('schemas', { load: async (key, { token }) => `${key}@${token}` });
    expect(await cache.fetch('books', { context: { token: 't1' } })).toBe('books@t1');
    expect(await cache.fetch('books', { context: { token: 't2' }, forceRefresh: true })).toBe('books@t2');
  });
});

describe('the caches of the domain', () => {
  it('the in-memory matcher\'s compiled patterns: the regexes row', () => {
    expect(boundOf(REGEXES)).toEqual({ max: CACHE_POLICIES.regexes.max, loads: false });
  });
});
