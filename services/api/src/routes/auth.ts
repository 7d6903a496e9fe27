import { AuthResultSchema, DATABASE_SPELLING_PATTERN } from '@entia/domain';
import { Type } from '@sinclair/typebox';
import { grantOf, unauthorized } from '../auth/authenticate';
import { refreshSignIn, signInWithApiKey } from '@entia/entities';
import { signInAnswer } from '../auth/answer';
import { TokenKeys } from '../auth/tokens';
import type { Deps } from '../deps';
import { defineRoute, type Route } from '../http/route';

const KEY = /^Bearer ([A-Za-z0-9_-]{16,256})$/;

/** GET /api/auth: an API key for a 48 h JWT (interface §5, SPEC §6); GET /api/auth/refresh: a fresh one for a valid one. */
export function authRoutes(deps: Deps): Route[] {
  const signingKey = TokenKeys.fromConfig(deps.config).signing;
  return [
    defineRoute({
      method: 'get',
      path: '/api/auth',
      operationId: 'authenticate',
      summary: 'Exchange an API key (Authorization: Bearer <API key>) for a JWT valid 48 hours.',
      tags: ['auth'],
      // The bearer here is an API key, not a token: this route reads it itself.
      auth: 'none',
      security: 'apiKey',
      query: Type.Object(
        { db: Type.Optional(Type.String({ pattern: DATABASE_SPELLING_PATTERN, description: 'Limit the token to this database.' })) },
        { additionalProperties: false },
      ),
      responses: {
        200: { description: 'The databases the key opens, and the token.', schema: AuthResultSchema },
        401: { description: 'Missing, unknown or revoked API key.' },
      },
      handler: async ({ query, req, res }) => {
        const match = KEY.exec(req.headers.authorization ?? '');
        if (!match) throw unauthorized('Send your API key as "Authorization: Bearer <API key>".');
        res.json(signInAnswer(await signInWithApiKey(deps.store, match[1]!, query.db), signingKey));
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
}
