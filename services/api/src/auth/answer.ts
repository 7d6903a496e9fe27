import type { SignIn } from '@entia/entities';
import { signToken, type TokenKey } from './tokens';

/** What every sign-in answers (`GET /api/auth`, OpenID Connect, passkeys): the account it opens and a 48 h token naming the credential. */
export function signInAnswer({ kid, db, person }: SignIn, signingKey: TokenKey) {
  return {
    accounts: [{ _id: db, name: db, user: person }],
    token: signToken({ accounts: { [db]: person._id }, kid }, signingKey),
  };
}
