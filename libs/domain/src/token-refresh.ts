import { unauthenticated } from './errors';

/** How long a token lives (SPEC §6: 48 h), from its issue or its last refresh. */
export const TOKEN_LIFETIME_SECONDS = 48 * 3600;

/**
 * How long refreshing can stretch one sign-in: a token refreshed every day still ends this long after
 * its credential was first shown, and the credential must be shown again. It bounds what a token
 * copied once is worth, where revocation does not reach (a key nobody knows to revoke).
 */
export const SIGN_IN_CEILING_SECONDS = 30 * 24 * 3600;

/**
 * Whether a token signed in at `authTime` (seconds, as the token's `auth_time` claim carries it)
 * may be refreshed at `nowSeconds`: a 401 once the sign-in is older than the ceiling, or when it
 * says it is from the future (a clock or a forgery; allowed 60 s of skew between API processes).
 */
export function checkRefreshable(authTime: number, nowSeconds: number): void {
  if (!Number.isFinite(authTime) || authTime > nowSeconds + 60) throw unauthenticated('This token cannot be refreshed: sign in again.');
  if (nowSeconds - authTime > SIGN_IN_CEILING_SECONDS) {
    throw unauthenticated('This sign-in is over 30 days old and cannot be refreshed: sign in again (GET /api/auth with your API key).');
  }
}
