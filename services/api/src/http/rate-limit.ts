import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { RedisBreaker } from '@entia/jobs';
import type { Logger } from 'pino';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { grantOf } from '../auth/authenticate';
import { problems, sendProblem } from './problem';

/**
 * rate-limit-redis loads its Lua script once, at start. If Redis is down then, the rejected promise
 * is kept and every later count fails even after Redis returns; reload the script after a failure.
 */
class RecoveringRedisStore extends RedisStore {
  override async increment(key: string) {
    try {
      return await super.increment(key);
    } catch (error) {
      this.incrementScriptSha = this.loadIncrementScript();
      this.incrementScriptSha.catch(() => undefined);
      throw error;
    }
  }
}

export interface RateLimitOptions {
  breaker: RedisBreaker;
  windowMs: number;
  max: number;
  prefix: string;
  logger: Logger;
}

/** The counter of a signed-in caller: the person (per database) their token grants. */
const personKey = (accounts: Record<string, string>) =>
  `person:${Object.entries(accounts)
    .map(([db, person]) => `${db}/${person}`)
    .sort()
    .join(',')}`;

/**
 * Fixed-window limit per client (signed-in person or IP), counted in Redis so every API replica shares the counts. While
 * Redis is unreachable requests pass: an outage of the limiter must not become an outage of the API. Once the
 * breaker knows Redis is away the limiter is skipped without a Redis call; the call that finds it away (a
 * command timeout) passes the request after that one wait.
 */
export function rateLimiter({ breaker, windowMs, max, prefix, logger }: RateLimitOptions): RequestHandler {
  return rateLimit({
    windowMs,
    limit: max,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skip: () => !breaker.available,
    passOnStoreError: true,
    // The library's default logger is the console; ours is structured. The breaker already logs the
    // outage once, so a request let through is only worth a debug line.
    logger: { error: (err, message) => logger.debug({ err }, message), warn: (warning, message) => logger.warn({ warning }, message) },
    // Per person once the caller is known (a verified token), else per IP. Not per API key: a
    // person may hold several keys, and each must not open a window of its own (issue 14).
    keyGenerator: (req, res) => {
      const grant = grantOf(res);
      return grant ? personKey(grant.accounts) : ipKeyGenerator(req.ip ?? 'unknown');
    },
    store: new RecoveringRedisStore({
      prefix: `${prefix}:rl:`,
      sendCommand: (command: string, ...args: string[]) => breaker.run((redis) => redis.call(command, ...args) as Promise<RedisReply>),
    }),
    handler: (req, res) => {
      const resetTime = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(windowMs / 1000);
      sendProblem(res, problems.tooManyRequests(seconds));
    },
  });
}
