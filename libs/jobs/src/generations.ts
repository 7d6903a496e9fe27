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
   * by the response cache in its own round trip. An entity as returned depends on its own document
   * alone (labels and inherited rights are stored on it). A key that does not exist reads as `'0'`.
   */
  keyOf(db: string, id?: string): string {
    return id === undefined ? this.databaseKey(db) : this.entityKey(db, id);
  }

  async schema(db: string): Promise<string> {
    return (await this.breaker.run((redis) => redis.get(this.schemaKey(db)))) ?? '0';
  }
}

const token = () => randomBytes(8).toString('base64url');
