import type { RequestHandler } from 'express';
import type { Store } from '@entia/store';
import { boundedCache, unauthenticated, type BoundedCache } from '@entia/domain';
import { liveKey } from '@entia/entities';
import { problemOf } from '../http/error-handler';
import { setAuthFailure, setGrant } from '../http/caller';
import { TokenVerifier, type TokenKeys } from './tokens';

/** A 401 decided here rather than by a use case: answered as the domain's `unauthenticated`. */
export const unauthorized = (detail: string) => problemOf(unauthenticated(detail));

/**
 * Remembers for a short while whether an API key still opens its database (`liveKey`: not revoked,
 * its person and the persons it depends on still there), so a token is checked against revocation
 * without database reads per request: a revoked key's tokens stop within `ttlMs` (KEY_RECHECK_MS,
 * the `key-liveness` ttl). Requests of one key at once share one check.
 */
export class KeyLiveness {
  private readonly seen: BoundedCache<string, boolean>;
  /** KEY_RECHECK_MS=0: a check on every request (lru-cache has no ttl of 0: it would read it as "forever"). */
  private readonly always: boolean;

  constructor(store: Store, ttlMs: number, max?: number) {
    this.always = ttlMs === 0;
    this.seen = boundedCache('key-liveness', { ttl: Math.max(ttlMs, 1), max, load: async (kid) => (await liveKey(store, kid)) !== undefined });
  }

  async isLive(kid: string): Promise<boolean> {
    return (await this.seen.fetch(kid, { forceRefresh: this.always })) === true;
  }
}

/**
 * No Authorization header: anonymous. A bearer token: it must be a valid, unexpired JWT of ours
 * whose API key still exists, else 401 (never silently anonymous, SPEC §6). The 401 is not sent
 * here but kept for `refuseFailedAuthentication` (http/caller.ts), mounted after the rate limiter: a request whose
 * authentication failed has no verified caller, so the limiter counts it against its IP (SPEC §11:
 * failed authentications are limited too), and a flood of forged tokens is answered 429.
 */
export function authenticate(tokenKeys: TokenKeys, keys: KeyLiveness): RequestHandler {
  const tokens = new TokenVerifier(tokenKeys);
  return async (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined) return next();
    const match = /^Bearer ([A-Za-z0-9_.-]{1,4096})$/.exec(header);
    const grant = match ? tokens.verify(match[1]!) : undefined;
    if (!match) setAuthFailure(res, unauthorized('Authorization must be "Bearer <token>".'));
    else if (!grant) setAuthFailure(res, unauthorized('The token is invalid or expired: exchange your API key at GET /api/auth for a new one.'));
    // A database that cannot be asked is an outage (503), not the caller's failure: thrown at once.
    else if (!(await keys.isLive(grant.kid))) setAuthFailure(res, unauthorized('The API key this token came from was revoked.'));
    else setGrant(res, grant);
    next();
  };
}
