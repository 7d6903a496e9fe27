import { AuthResultSchema, DATABASE_SPELLING_PATTERN } from '@entia/domain';
import { Type } from '@sinclair/typebox';
import { unauthorized } from '../auth/authenticate';
import { grantOf } from '../http/caller';
import { acceptInvitation, databasesOfIdentity, refreshSignIn, signInWithApiKey, signInWithIdentity, type SignIn } from '@entia/entities';
import { signInAnswer } from '../auth/answer';
import { SignInKeys } from '../auth/sign-in-keys';
import { TokenKeys } from '../auth/tokens';
import type { Deps } from '../deps';
import { HttpProblem } from '../http/problem';
import { defineRoute, type Route } from '../http/route';
import type { Tenants } from '../tenancy';

const KEY = /^Bearer ([A-Za-z0-9_-]{16,256})$/;

const Database = Type.String({ pattern: DATABASE_SPELLING_PATTERN, description: 'Limit the token to this database.' });

/**
 * GET /api/auth: an API key (or a provider sign-in's one-time key) for a 48 h JWT
 * (interface §5, SPEC §6); GET /api/auth/refresh: a fresh one for a valid one.
 */
export function authRoutes(deps: Deps, tenants: Tenants, signInKeys: SignInKeys): Route[] {
  const signingKey = TokenKeys.fromConfig(deps.config).signing;
  return [
    defineRoute({
      method: 'get',
      path: '/api/auth',
      operationId: 'authenticate',
      summary:
        'Exchange an API key (Authorization: Bearer <API key>) for a JWT valid 48 hours. The one-time key a provider sign-in started at ' +
        'GET /api/auth/{provider} returned with is exchanged here too, once, within 5 minutes; without `db` it opens the one database that knows its person.',
      tags: ['auth'],
      // The bearer here is an API key, not a token: this route reads it itself.
      auth: 'none',
      security: 'apiKey',
      query: Type.Object(
        {
          db: Type.Optional(Database),
          account: Type.Optional({ ...Database, description: "Entu's other name for `db`." }),
          invite: Type.Optional(
            Type.String({ minLength: 1, maxLength: 2048, description: "An invitation's token (with a provider sign-in's one-time key): binds that identity to the invited person." }),
          ),
        },
        { additionalProperties: false },
      ),
      responses: {
        200: { description: 'The databases the key opens, and the token.', schema: AuthResultSchema },
        401: {
          description:
            'Missing, unknown or revoked API key; an unknown, used or expired one-time key; an identity no database knows; an invitation forged, expired, used, for another database, or sent with an API key.',
        },
        404: { description: 'A one-time key with `db` naming no database.' },
        409: { description: 'A one-time key without `db` whose person several databases know (sign in again naming one); an invitation for a person other than the one the identity is already bound to.' },
      },
      handler: async ({ query, req, res }) => {
        const authorization = req.headers.authorization ?? '';
        const match = KEY.exec(authorization);
        if (!match) {
          // Sent as asked but not shaped like a key (a token, a truncated paste): say so, not "send it".
          throw unauthorized(
            /^Bearer \S/.test(authorization)
              ? 'That is not an API key: a key is 16 to 256 characters of A-Z, a-z, 0-9, "-" and "_" (a token goes to the other routes, not here).'
              : 'Send your API key as "Authorization: Bearer <API key>".',
          );
        }
        const db = query.db ?? query.account;
        const oneTime = SignInKeys.isOne(match[1]!);
        if (query.invite !== undefined && !oneTime) throw unauthorized('An invitation is accepted with the one-time key of a provider sign-in, not with an API key.');
        const signIn = oneTime ? await withSignInKey(match[1]!, db, query.invite) : await signInWithApiKey(deps.store, match[1]!, db);
        res.set('Cache-Control', 'no-store').json(signInAnswer(signIn, signingKey));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/auth/refresh',
      operationId: 'refreshToken',
      summary:
        'A fresh 48 h token for a valid one (Authorization: Bearer <token>), as long as its credential is not revoked and it was signed in at most 30 days ago; the same answer as GET /api/auth.',
      tags: ['auth'],
      security: 'required',
      query: Type.Object({}, { additionalProperties: false }),
      responses: {
        200: { description: 'The account, and a fresh token.', schema: AuthResultSchema },
        401: { description: 'No token, an invalid or expired one, its credential revoked, or its sign-in over 30 days old.' },
      },
      handler: async ({ res }) => {
        const grant = grantOf(res);
        if (!grant) throw unauthorized('Send the token to refresh as "Authorization: Bearer <token>".');
        // A token from before auth_time carried its sign-in in iat; one with neither cannot say how old its sign-in is.
        const signIn = await refreshSignIn(deps.store, grant.kid, grant.authTime ?? Number.NaN);
        res.set('Cache-Control', 'no-store').json(signInAnswer(signIn, signingKey, grant.authTime));
      },
    }),
  ];

  /**
   * A provider sign-in's one-time key, taken: its person signs in to `db`, or without one to the
   * one database that knows the identity. A named database is checked before the key is spent.
   */
  async function withSignInKey(key: string, db: string | undefined, invite: string | undefined): Promise<SignIn> {
    // Entu's client names the invitation's database (it reads it from the token); one is needed to accept it.
    if (invite !== undefined && db === undefined) throw unauthorized('An invitation is accepted in its database: send db with it.');
    const named = db === undefined ? undefined : await tenants.resolve(db, undefined);
    const person = await signInKeys.take(key);
    if (!person) throw unauthorized('Unknown, used or expired sign-in key: sign in again.');
    if (named && invite !== undefined) return acceptInvitation(deps, named, invite, person.identity, person.profile);
    if (named) return signInWithIdentity(deps, named, person.identity, person.profile);
    const databases = await databasesOfIdentity(deps, person.identity);
    if (databases.length === 0) throw unauthorized('This identity is not a person of any database: sign in again naming the database (db) to join one.');
    if (databases.length > 1) {
      throw new HttpProblem(409, 'choose-database', 'Conflict', `This identity is a person of several databases (${databases.join(', ')}): sign in again naming one (db).`);
    }
    return signInWithIdentity(deps, await tenants.resolve(databases[0]!, undefined), person.identity, person.profile);
  }
}
