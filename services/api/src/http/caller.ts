import type { RequestHandler, Response } from 'express';
import type { HttpProblem } from './problem';

/**
 * What a verified token grants: a person in each of some databases, through one API key. The
 * token layer (`auth/`) verifies it and leaves it on the request; the HTTP layer (rate limits,
 * idempotency keys, the route context's tenant) reads it from here, so neither imports the other
 * both ways.
 */
export interface Grant {
  /** database name → person id; read it with `personIn`, never by indexing. */
  accounts: Record<string, string>;
  /** Hash of the API key it was exchanged for, so revoking the key ends the token (the token's `key` claim). */
  kid: string;
  /**
   * When the credential was shown (s since the epoch; the `auth_time` claim): refreshing keeps it,
   * so a sign-in cannot be stretched past `SIGN_IN_CEILING_SECONDS`. Tokens from before refresh
   * existed have none: their `iat`, which is when they were signed in.
   */
  authTime?: number;
}

/** The verified grant of this request's token; undefined for an anonymous request. */
export function grantOf(res: Response): Grant | undefined {
  return res.locals.grant as Grant | undefined;
}

/** The request is made by the holder of this verified grant. */
export function setGrant(res: Response, grant: Grant): void {
  res.locals.grant = grant;
}

/** The request's authentication failed: answered by `refuseFailedAuthentication`, once the rate limiter has counted it. */
export function setAuthFailure(res: Response, failure: HttpProblem): void {
  res.locals.authFailure = failure;
}

/** Answers the 401 that authentication found, once the rate limiter has counted the request. */
export const refuseFailedAuthentication: RequestHandler = (_req, res, next) => {
  const failure = res.locals.authFailure as HttpProblem | undefined;
  if (failure) throw failure;
  next();
};
