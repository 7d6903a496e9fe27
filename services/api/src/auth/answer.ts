import type { SignIn } from '@entia/entities';
import { issueToken, type TokenKey } from './tokens';

/**
 * What every sign-in answers (`GET /api/auth`, its refresh, OpenID Connect, passkeys): the account
 * it opens, the person (`user`, as Entu's client keeps it), a 48 h token naming the credential and
 * when it expires. `authTime` (a refresh's) keeps the token's original sign-in time.
 */
export function signInAnswer({ kid, db, person }: SignIn, signingKey: TokenKey, authTime?: number) {
  const { token, expires } = issueToken({ accounts: { [db]: person._id }, kid, ...(authTime === undefined ? {} : { authTime }) }, signingKey);
  return { accounts: [{ _id: db, name: db, user: person }], user: { name: person.name }, token, expires };
}
