import type { RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import type { Redis } from 'ioredis';
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
  redis: Redis;
  windowMs: number;
  max: number;
  prefix: string;
}

/**
 * Fixed-window limit per client (API key or IP), counted in Redis so every API replica shares the counts. While
 * Redis is unreachable requests pass: an outage of the limiter must not become an outage of the API.
 */
export function rateLimiter({ redis, windowMs, max, prefix }: RateLimitOptions): RequestHandler {
  return rateLimit({
    windowMs,
    limit: max,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    passOnStoreError: true,
    // Per API key once the caller is known (a verified token), else per IP.
    keyGenerator: (req, res) => {
      const grant = grantOf(res);
      return grant ? `key:${grant.kid}` : ipKeyGenerator(req.ip ?? 'unknown');
    },
    store: new RecoveringRedisStore({
      prefix: `${prefix}:rl:`,
      sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<RedisReply>,
    }),
    handler: (req, res) => {
      const resetTime = (req as { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(windowMs / 1000);
      sendProblem(res, problems.tooManyRequests(seconds));
    },
  });
}
