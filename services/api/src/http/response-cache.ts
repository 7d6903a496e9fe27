import { createHash } from 'node:crypto';
import type { Generations, RedisBreaker } from '@entia/jobs';
import type { Request, Response } from 'express';
import fresh from 'fresh';
import type { Logger } from 'pino';
import type { Prefetch } from './rate-limit';

/** A response body ready to send, and its entity tag. */
export interface Rendered {
  body: string | Buffer;
  etag: string;
  hit: boolean;
}

/** What a cached response shows: an entity (or, without one, the database's lists), and whose view, which query. */
export interface CacheAddress {
  db: string;
  entity?: string;
  variant: string;
}

/** The entry a request's address named, read with its generation token before the handler ran. */
interface Lookup {
  key: string;
  /** Where the token is kept, to claim one when there is none. */
  tokenKey: string;
  /** None: never set, lapsed or evicted; then nothing stored matches (see `Generations`). */
  token: string | null;
  /** `<token>\n<etag>\n<body>`, as stored. */
  stored: Buffer | null;
}

// Larger pages are served fresh each time: one huge entry must not crowd Redis (it may hold the queue too).
const MAX_ENTRY_BYTES = 512 * 1024;

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * GET responses kept in Redis (SPEC §10), one entry per database, entity (or list) and variant —
 * the caller's view and the normalised query: one caller never receives a page rendered for
 * another. An entry holds the generation token it was rendered under (`Generations`), and is a hit
 * only while that token is current: writes replace the token before they are acknowledged, so an
 * entry never outlives its data, and a reader that raced a write can only store its page under
 * the old token, where it is never taken for current.
 *
 * The token and the entry are read with the rate-limit count, in one round trip before the
 * handler runs (`prefetch`); the handler's `render` uses what was read. Without that read
 * (Redis away, caching off, an address that names nothing cacheable) the page is rendered afresh.
 */
export class ResponseCache {
  constructor(
    private readonly breaker: RedisBreaker,
    private readonly generations: Generations,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly logger: Logger,
  ) {}

  /** The reads a route's guard makes for the address `addressOf` finds in a request (undefined: none). */
  prefetch(addressOf: (req: Request, res: Response) => CacheAddress | undefined): Prefetch {
    return {
      keys: (req, res) => {
        if (this.ttlSeconds <= 0) return undefined;
        let address: CacheAddress | undefined;
        try {
          address = addressOf(req, res);
        } catch {
          // Input the route will refuse (validation runs after the guard): nothing to read.
          return undefined;
        }
        if (address === undefined) return undefined;
        const key = `${this.prefix}:cache:${address.db}:${address.entity ?? 'list'}:${digest(address.variant)}`;
        const tokenKey = this.generations.keyOf(address.db, address.entity);
        res.locals.cacheKeys = { key, tokenKey };
        return [tokenKey, key];
      },
      keep: (res, [token, stored]) => {
        const { key, tokenKey } = res.locals.cacheKeys as { key: string; tokenKey: string };
        const lookup: Lookup = { key, tokenKey, token: token?.toString() ?? null, stored: stored ?? null };
        res.locals.cacheLookup = lookup;
      },
    };
  }

  /** The response the prefetched entry holds when it is current, else `produce`'s, stored for the next reader. */
  async render(res: Response, produce: () => Promise<unknown>): Promise<Rendered> {
    const lookup = res.locals.cacheLookup as Lookup | undefined;
    const current = lookup && cached(lookup);
    if (current) return current;
    const body = JSON.stringify(await produce());
    const etag = `"${digest(body).slice(0, 27)}"`;
    if (lookup && body.length <= MAX_ENTRY_BYTES) await this.store(lookup, `${etag}\n${body}`).catch((err: unknown) => this.logger.debug({ err }, 'response not cached'));
    return { body, etag, hit: false };
  }

  /**
   * Keeps a page under the token read before it was rendered. With none then, under a fresh one
   * claimed now — unless a write set one meanwhile: that page may predate the write, so it is not kept.
   */
  private async store(lookup: Lookup, entry: string): Promise<void> {
    const token = lookup.token ?? (await this.generations.claim(lookup.tokenKey));
    if (token === undefined) return;
    await this.breaker.run((redis) => redis.set(lookup.key, `${token}\n${entry}`, 'EX', this.ttlSeconds));
  }
}

/** The stored response, if it was rendered under the current token (tokens and tags are ASCII). */
function cached({ token, stored }: Lookup): Rendered | undefined {
  if (token === null) return undefined;
  const head = token.length + 1;
  if (stored === null || stored.length <= head || stored.toString('latin1', 0, head) !== `${token}\n`) return undefined;
  const split = stored.indexOf(0x0a, head);
  if (split < 0) return undefined;
  return { etag: stored.toString('latin1', head, split), body: stored.subarray(split + 1), hit: true };
}

/**
 * Sends a rendered GET response with its `ETag`; a matching `If-None-Match` gets `304`. Clients
 * and proxies must revalidate (`no-cache`): the data may change at any moment, and a page is
 * private to its caller.
 */
export function sendRendered(req: Request, res: Response, rendered: Rendered): void {
  res.set({ ETag: rendered.etag, 'Cache-Control': 'private, no-cache', 'X-Cache': rendered.hit ? 'hit' : 'miss' });
  if (notModified(req, rendered.etag)) {
    res.status(304).end();
    return;
  }
  // Set in full: express adds the charset to a string body's type, not to a Buffer's (a hit).
  res.set('Content-Type', 'application/json; charset=utf-8').send(rendered.body);
}

/**
 * Whether the client's copy (`If-None-Match`, weak comparison) is current. Not `req.fresh`: that
 * answers "stale" to any request with `Cache-Control: no-cache`, which a browser adds to a page's
 * `fetch()` with `If-None-Match` under `cache: 'no-store'` (the fetch standard: to any request
 * carrying it), so such pages never got a 304. `no-cache` asks caches on the way to revalidate with
 * the origin; this is the origin, and comparing the tag is that revalidation.
 */
function notModified(req: Request, etag: string): boolean {
  const ifNoneMatch = req.headers['if-none-match'];
  return ifNoneMatch !== undefined && fresh({ 'if-none-match': ifNoneMatch }, { etag });
}
