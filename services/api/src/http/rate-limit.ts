import type { RedisBreaker } from '@entia/jobs';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { grantOf } from './caller';
import { problems } from './problem';

export interface RateLimitOptions {
  breaker: RedisBreaker;
  windowMs: number;
  max: number;
  prefix: string;
  logger: Logger;
}

/**
 * Redis keys a route reads in the same round trip as the count (a cached GET's generation token
 * and entry), and where it keeps what they held for its handler.
 */
export interface Prefetch {
  keys(req: Request, res: Response): string[] | undefined;
  /** What the keys held, as bytes (a cached body is sent as it was stored, never decoded). */
  keep(res: Response, values: (Buffer | null)[]): void;
}

// One call counts the client's hit in its fixed window (the counter expires `windowMs` after the
// window's first hit) and reads any further keys: a cached GET costs one round trip in all.
const COUNT_AND_READ = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
local answer = {hits, ttl}
for i = 2, #KEYS do answer[i + 1] = redis.call('GET', KEYS[i]) end
return answer`;

type Counting = Redis & { entiaCountAndReadBuffer(keyCount: number, ...keysThenArgs: (string | number)[]): Promise<[number, number, ...(Buffer | null)[]]> };
const scripted = new WeakSet<Redis>();

/** The client's script command, defined once per connection (ioredis sends EVALSHA, EVAL on NOSCRIPT; `…Buffer` answers bytes). */
function counting(redis: Redis): Counting {
  if (!scripted.has(redis)) {
    redis.defineCommand('entiaCountAndRead', { lua: COUNT_AND_READ });
    scripted.add(redis);
  }
  return redis as Counting;
}

/** The counter of a signed-in caller: the person (per database) their token grants. */
const personKey = (accounts: Record<string, string>) =>
  `person:${Object.entries(accounts)
    .map(([db, person]) => `${db}/${person}`)
    .sort()
    .join(',')}`;

/**
 * Fixed-window limit per client (signed-in person, else IP), counted in Redis so every API replica
 * shares the counts. Not express-rate-limit's store: its count is a round trip of its own before the
 * handler, where a cached GET needs the count and the cache's reads in one. While Redis
 * is unreachable requests pass: an outage of the limiter must not become an outage of the API. Once
 * the breaker knows Redis is away no call is made; the call that finds it away (a command timeout)
 * passes the request after that one wait.
 */
export class RateLimiter {
  private readonly policy: string;

  constructor(private readonly options: RateLimitOptions) {
    this.policy = `"window"; q=${options.max}; w=${Math.ceil(options.windowMs / 1000)}`;
  }

  /**
   * The guard of a route: counts the request, answers 429 past the limit, else sets the
   * `RateLimit` headers (IETF draft 8) and goes on; with `prefetch`, reads its keys in the same call.
   */
  guard(prefetch?: Prefetch): RequestHandler {
    return async (req, res, next) => {
      const { breaker, windowMs, max, prefix, logger } = this.options;
      if (!breaker.available) return next();
      const reads = prefetch?.keys(req, res) ?? [];
      let counted: [number, number, ...(Buffer | null)[]];
      try {
        counted = await breaker.run((redis) => counting(redis).entiaCountAndReadBuffer(1 + reads.length, `${prefix}:rl:${this.clientOf(req, res)}`, ...reads, windowMs));
      } catch (err) {
        logger.debug({ err }, 'rate limit not counted: the request passes');
        return next();
      }
      const [hits, ttlMs, ...values] = counted;
      const resetSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
      res.set({ 'RateLimit-Policy': this.policy, RateLimit: `"window"; r=${Math.max(0, max - hits)}; t=${resetSeconds}` });
      if (hits > max) throw problems.tooManyRequests(resetSeconds);
      if (prefetch && reads.length > 0) prefetch.keep(res, values);
      next();
    };
  }

  // Per person once the caller is known (a verified token), else per IP. Not per API key: a person
  // may hold several keys, and each must not open a window of its own.
  private clientOf(req: Request, res: Response): string {
    const grant = grantOf(res);
    return grant ? personKey(grant.accounts) : ipKeyGenerator(req.ip ?? 'unknown');
  }
}
