import { AuthResultSchema, DATABASE_SPELLING_PATTERN } from '@entia/domain';
import { Type } from '@sinclair/typebox';
import { unauthorized } from '../auth/authenticate';
import { signInWithApiKey } from '@entia/entities';
import { signInAnswer } from '../auth/answer';
import { TokenKeys } from '../auth/tokens';
import type { Deps } from '../deps';
import { defineRoute, type Route } from '../http/route';

const KEY = /^Bearer ([A-Za-z0-9_-]{16,256})$/;

/** GET /api/auth: an API key for a 48 h JWT (interface §5, SPEC §6). */
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
  ];
}
