/** The two Redis commands used here (an ioredis client fits). */
export interface KeyScanner {
  scan(cursor: string, match: 'MATCH', pattern: string, count: 'COUNT', n: number): Promise<[cursor: string, elements: string[]]>;
  del(...keys: string[]): Promise<number>;
}

/**
 * The Redis keys of one database, by pattern (SCAN MATCH; database names are `[a-z][a-z0-9_]`, so
 * they hold no glob character). Where each layout is defined:
 * - `<p>:gen:<db>`, `<p>:gen:<db>:…`: cache generations (libs/jobs/src/generations.ts)
 * - `<p>:cache:<db>:…`: response cache entries (services/api/src/http/response-cache.ts)
 * - `<p>:changes:{<db>}:…`: the change log, its epoch and intents (libs/jobs/src/change-log.ts)
 * - `<p>:lease:<db>/…`: write leases of its entities (libs/store/src/leases.ts, writer.ts)
 * - `<p>:rl:person:<db>/<person>[,…]`: rate-limit counters of its persons (http/rate-limit.ts);
 *   a token granting several databases names them all, matched by `ofDatabase` below.
 */
export function databaseKeyPatterns(prefix: string, db: string): { match: string; ofDatabase?: (key: string) => boolean }[] {
  return [
    { match: `${prefix}:gen:${db}` },
    { match: `${prefix}:gen:${db}:*` },
    { match: `${prefix}:cache:${db}:*` },
    { match: `${prefix}:changes:{${db}}:*` },
    { match: `${prefix}:lease:${db}/*` },
    {
      match: `${prefix}:rl:person:*`,
      ofDatabase: (key) =>
        key
          .slice(`${prefix}:rl:person:`.length)
          .split(',')
          .some((account) => account.startsWith(`${db}/`)),
    },
  ];
}

/** The database's keys, a SCAN page at a time (never KEYS: it blocks Redis). */
async function* databaseKeys(redis: KeyScanner, prefix: string, db: string): AsyncGenerator<string[]> {
  for (const { match, ofDatabase } of databaseKeyPatterns(prefix, db)) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 500);
      cursor = next;
      yield ofDatabase ? keys.filter(ofDatabase) : keys;
    } while (cursor !== '0');
  }
}

/** Deletes the database's keys; resolves with how many. */
export async function deleteDatabaseKeys(redis: KeyScanner, prefix: string, db: string): Promise<number> {
  let deleted = 0;
  for await (const keys of databaseKeys(redis, prefix, db)) if (keys.length > 0) deleted += await redis.del(...keys);
  return deleted;
}

/** How many keys of the database are left (the test of a complete deletion, and a re-run's check). */
export async function countDatabaseKeys(redis: KeyScanner, prefix: string, db: string): Promise<number> {
  let count = 0;
  for await (const keys of databaseKeys(redis, prefix, db)) count += keys.length;
  return count;
}
