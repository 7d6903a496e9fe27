import { createHash } from 'node:crypto';
import type { Generations, RedisBreaker } from '@entia/jobs';
import type { Request, Response } from 'express';
import fresh from 'fresh';
import type { Logger } from 'pino';

/** A response body ready to send, and its entity tag. */
export interface Rendered {
  body: string;
  etag: string;
  hit: boolean;
}

// Larger pages are served fresh each time: one huge entry must not crowd Redis (it holds the queue).
const MAX_ENTRY_BYTES = 512 * 1024;

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

/**
 * GET responses kept in Redis (SPEC §10), keyed by database, the generation token of what they
 * show (an entity, or the whole database for lists), and a variant naming the caller and the
 * normalised query: one caller never receives a page rendered for another. Writes replace the
 * token before they are acknowledged (`Generations`), so an entry never outlives its data.
 * Redis being away only means rendering afresh: every call goes through the breaker, so once Redis
 * is known to be away the cache costs no wait at all.
 */
export class ResponseCache {
  constructor(
    private readonly breaker: RedisBreaker,
    private readonly generations: Generations,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
    private readonly logger: Logger,
  ) {}

  async render(db: string, entity: string | undefined, variant: string, produce: () => Promise<unknown>): Promise<Rendered> {
    const key = this.ttlSeconds > 0 ? await this.key(db, entity, variant) : undefined;
    if (key !== undefined) {
      const stored = await this.breaker.run((redis) => redis.get(key)).catch(() => null);
      if (stored !== null) {
        const split = stored.indexOf('\n');
        return { etag: stored.slice(0, split), body: stored.slice(split + 1), hit: true };
      }
    }
    const body = JSON.stringify(await produce());
    const etag = `"${digest(body).slice(0, 27)}"`;
    if (key !== undefined && body.length <= MAX_ENTRY_BYTES) {
      await this.breaker
        .run((redis) => redis.set(key, `${etag}\n${body}`, 'EX', this.ttlSeconds))
        .catch((err: unknown) => this.logger.debug({ err }, 'response not cached'));
    }
    return { body, etag, hit: false };
  }

  private async key(db: string, entity: string | undefined, variant: string): Promise<string | undefined> {
    try {
      const token = await this.generations.current(db, entity);
      return `${this.prefix}:cache:${db}:${entity ?? 'list'}:${token}:${digest(variant)}`;
    } catch (err) {
      this.logger.debug({ err }, 'response cache unavailable');
      return undefined;
    }
  }
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
  res.type('application/json').send(rendered.body);
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
