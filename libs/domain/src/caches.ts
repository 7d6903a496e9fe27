import { LRUCache } from 'lru-cache';

/**
 * The one policy of every in-process cache: an LRU (lru-cache) with a bound, so a process keeps at
 * most `max` entries of each and the least recently used goes first; a `ttl` where an entry can go
 * stale and nothing else tells the cache; and, where the cache loads what it misses, the load as
 * its `fetchMethod`, so readers asking for the same key at once share one load.
 *
 * It lives in the domain, the one package every cache's package depends on (the in-memory matcher's
 * regex cache is here too). lru-cache is a pure in-memory library with no dependencies and no I/O,
 * like TypeBox, the domain's other library: the domain still reads no database, network or file.
 *
 * The bounds are per process and are the numbers each cache had before it was put on this policy.
 */
export interface CachePolicy {
  /** Entries kept at most. */
  max: number;
  /**
   * How long an entry is trusted (ms): a number, or `'configured'` when the builder must give one
   * (a setting). Absent: an entry is never stale by age — its key changes with what it holds, or
   * the reason is written beside the cache.
   */
  ttl?: number | 'configured';
}

export const CACHE_POLICIES = {
  /** Whether an API key still opens its database (`KeyLiveness`, services/api): KEY_RECHECK_MS. */
  'key-liveness': { max: 10_000, ttl: 'configured' },
  /** Tokens whose signature verified (`TokenVerifier`, services/api): each is trusted until its own `exp`, checked on every read. */
  'verified-tokens': { max: 10_000 },
  /** Compiled schemas by database (`SchemaCache`, libs/entities): used only under the schema token they were read with. */
  schemas: { max: 200 },
  /** Entities writes reference (`TargetCache`, libs/entities): used only under the generation token they were read with. */
  targets: { max: 2_000 },
  /** Compiled filter patterns (`regexOf`, the in-memory matcher): a pure function's results. */
  regexes: { max: 256 },
  /** A database's webhooks (`WebhookDirectory`, services/worker): read again after the dispatcher's `cacheMs`. */
  webhooks: { max: 1_000, ttl: 5_000 },
  /** Registry records by database name (`DatabaseRecords`, libs/store): a record does not change after creation. */
  'database-records': { max: 10_000 },
  /**
   * The indexes of a database's entities, as listed (`SortIndexes`, libs/store): read again after
   * 10 minutes, so an index another API process built, or one an operator dropped, is seen.
   */
  'entity-indexes': { max: 1_000, ttl: 600_000 },
  /** Sort indexes whose build failed, logged once per process each (`SortIndexes`, libs/store). */
  'sort-index-failures': { max: 10_000 },
} as const satisfies Record<string, CachePolicy>;

export type CacheName = keyof typeof CACHE_POLICIES;

/** A cache built by `boundedCache`: lru-cache's, so callers use its `get`/`set`/`fetch`. */
export type BoundedCache<K extends {}, V extends {}, Context = unknown> = LRUCache<K, V, Context>;

export interface CacheOptions<K extends {}, V extends {}, Context> {
  /** A smaller bound than the policy's (tests, a caller that knows better). */
  max?: number;
  /** The ttl of a `'configured'` policy, or one replacing the policy's (ms, > 0). */
  ttl?: number;
  /** What a miss loads (undefined: nothing to keep); concurrent `fetch`es of one key share it. */
  load?: (key: K, context: Context) => Promise<V | undefined>;
  /** The clock a ttl is measured by (tests); the process's monotonic clock otherwise. */
  clock?: { now(): number };
}

/** The bound a cache was built with: what each cache's test compares with its policy. */
export interface CacheBound {
  max: number;
  ttl?: number;
  loads: boolean;
}

/** The cache `name` under the policy: its bound, its ttl, its load. */
export function boundedCache<K extends {}, V extends {}, Context = unknown>(name: CacheName, options: CacheOptions<K, V, Context> = {}): BoundedCache<K, V, Context> {
  const policy: CachePolicy = CACHE_POLICIES[name];
  const ttl = options.ttl ?? (typeof policy.ttl === 'number' ? policy.ttl : undefined);
  if (policy.ttl === 'configured' && ttl === undefined) throw new Error(`cache ${name}: its entries go stale, so it needs a ttl`);
  if (ttl !== undefined && !(Number.isInteger(ttl) && ttl > 0)) throw new Error(`cache ${name}: a ttl is a whole number of ms above 0 (lru-cache reads 0 as "forever")`);
  const max = Math.min(options.max ?? policy.max, policy.max);
  const { load, clock } = options;
  return new LRUCache<K, V, Context>({
    max,
    ...(ttl === undefined ? {} : { ttl }),
    // A test's clock is read at every look (lru-cache otherwise reuses a reading for 1 ms).
    ...(clock === undefined ? {} : { perf: clock, ttlResolution: 0 }),
    // A load runs to its end even if its entry is pushed out meanwhile: its readers get its answer.
    ...(load === undefined ? {} : { fetchMethod: (key: K, _stale: V | undefined, { context }: { context: Context }) => load(key, context), ignoreFetchAbort: true }),
  });
}

/** The bound of a cache built by `boundedCache`. */
export function boundOf(cache: { readonly max: number; readonly ttl: number; readonly fetchMethod?: unknown }): CacheBound {
  return { max: cache.max, ...(cache.ttl > 0 ? { ttl: cache.ttl } : {}), loads: cache.fetchMethod !== undefined };
}
