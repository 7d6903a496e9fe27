import { randomBytes } from 'node:crypto';
import type { RedisBreaker } from './breaker';

/**
 * Generation tokens in Redis, which every cache of derived or rendered data keys its entries by.
 * A write replaces the tokens of what it changed, so every entry made before is never read again
 * (and expires by itself). A reader that raced the write may store an old page, but under the old
 * token, where nobody looks any more: unlike deleting entries, this cannot resurrect stale data.
 *
 * - database token: any entity of the database changed (lists, searches);
 * - entity token: that entity changed (GET of it);
 * - schema token: a type or property definition changed (cached definitions).
 *
 * A token is a fresh random word, not a counter: entity tokens expire (there is one per written
 * entity), and a counter restarting at 1 could meet an entry of its previous life.
 *
 * A token that is missing — never set, expired, or evicted by a cache Redis that may evict
 * (CACHE_REDIS_URL) — matches nothing: no entry is read or stored under "no token". A
 * reader that finds none `claim`s a fresh one (only if still none: a writer's token always wins)
 * and stores under that, so an entry made before an eviction can never be taken for current.
 *
 * Every call goes through the breaker: while Redis is away they fail at once (`RedisUnavailableError`).
 */
export class Generations {
  constructor(
    private readonly breaker: RedisBreaker,
    private readonly prefix: string,
    /** How long an entry keyed by a token may live; tokens outlive it, so a lapsed token finds nothing old. */
    private readonly entryTtlSeconds: number,
  ) {}

  private databaseKey(db: string): string {
    return `${this.prefix}:gen:${db}`;
  }

  private entityKey(db: string, id: string): string {
    return `${this.prefix}:gen:${db}:e:${id}`;
  }

  private schemaKey(db: string): string {
    return `${this.prefix}:gen:${db}:schema`;
  }

  /** Marks entities of `db` as changed; `schema` when a type or definition is among them. */
  async touch(db: string, ids: readonly string[], schema = false): Promise<void> {
    const ttl = Math.max(1, this.entryTtlSeconds * 2);
    await this.breaker.run(async (redis) => {
      const multi = redis.multi().set(this.databaseKey(db), token(), 'EX', ttl);
      for (const id of new Set(ids)) multi.set(this.entityKey(db, id), token(), 'EX', ttl);
      if (schema) multi.set(this.schemaKey(db), token());
      const results = await multi.exec();
      // Inside the breaker: a command of the transaction that timed out counts as Redis being away.
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('cache invalidation did not run');
    });
  }

  /**
   * The key of the token a cached list of `db` (`id` undefined) or a cached entity is keyed by, read
   * by the response cache with the rate-limit count. An entity as returned depends on its own
   * document alone (labels and inherited rights are stored on it). A missing key is no token:
   * `claim` one before storing.
   */
  keyOf(db: string, id?: string): string {
    return id === undefined ? this.databaseKey(db) : this.entityKey(db, id);
  }

  /** The current tokens of these entities of `db`, in order; null where there is none (see `claim`). */
  async tokens(db: string, ids: readonly string[]): Promise<(string | null)[]> {
    if (ids.length === 0) return [];
    return this.breaker.run((redis) => redis.mget(ids.map((id) => this.entityKey(db, id))));
  }

  /**
   * A fresh token for the token key `key` (from `keyOf`) that was found missing, or undefined when
   * one was set meanwhile — by a write, whose page the caller may not have: it then stores nothing.
   */
  async claim(key: string): Promise<string | undefined> {
    const fresh = token();
    const set = await this.breaker.run((redis) => redis.set(key, fresh, 'EX', Math.max(1, this.entryTtlSeconds * 2), 'NX'));
    return set === 'OK' ? fresh : undefined;
  }

  /** The schema token of `db`; a missing one (never set, or evicted) is replaced by a fresh one first. */
  async schema(db: string): Promise<string> {
    const key = this.schemaKey(db);
    const current = await this.breaker.run((redis) => redis.get(key));
    if (current !== null) return current;
    // Whoever sets it first (this, another reader, a write) decides; all then read the same.
    await this.breaker.run((redis) => redis.set(key, token(), 'NX'));
    return (await this.breaker.run((redis) => redis.get(key))) ?? token();
  }
}

const token = () => randomBytes(8).toString('base64url');
