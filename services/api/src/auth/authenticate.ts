import type { RequestHandler, Response } from 'express';
import type { ControlDb } from '@entia/store';
import { HttpProblem } from '../http/problem';
import { tokenKey, verifyToken, type Grant } from './tokens';

export const unauthorized = (detail: string) =>
  new HttpProblem(401, 'unauthorized', 'Unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer realm="entia"' });

/**
 * Remembers for a short while whether an API key still exists, so a token is checked against
 * revocation without a database read per request: a revoked key's tokens stop within `ttlMs`.
 */
export class KeyLiveness {
  private readonly seen = new Map<string, { live: boolean; until: number }>();

  constructor(
    private readonly control: ControlDb,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  async isLive(kid: string): Promise<boolean> {
    const now = Date.now();
    const cached = this.seen.get(kid);
    if (cached && cached.until > now) return cached.live;
    const live = (await this.control.key(kid)) !== undefined;
    if (this.seen.size >= this.maxEntries) this.seen.clear();
    this.seen.set(kid, { live, until: now + this.ttlMs });
    return live;
  }
}

/** The verified grant of this request's token; undefined for an anonymous request. */
export function grantOf(res: Response): Grant | undefined {
  return res.locals.grant as Grant | undefined;
}

/**
 * No Authorization header: anonymous. A bearer token: it must be a valid, unexpired JWT of ours
 * whose API key still exists, else 401 (never silently anonymous, SPEC §6).
 */
export function authenticate(secret: string, keys: KeyLiveness): RequestHandler {
  const key = tokenKey(secret);
  return async (req, res, next) => {
    const header = req.headers.authorization;
    if (header === undefined) return next();
    const match = /^Bearer ([A-Za-z0-9_.-]{1,4096})$/.exec(header);
    if (!match) throw unauthorized('Authorization must be "Bearer <token>".');
    const grant = verifyToken(match[1]!, key);
    if (!grant) throw unauthorized('The token is invalid or expired: exchange your API key at GET /api/auth for a new one.');
    if (!(await keys.isLive(grant.kid))) throw unauthorized('The API key this token came from was revoked.');
    res.locals.grant = grant;
    next();
  };
}
