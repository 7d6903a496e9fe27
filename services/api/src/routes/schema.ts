import { createHash } from 'node:crypto';
import { DatabaseSchemaSchema } from '@entia/domain';
import { describeDatabaseSchema } from '@entia/entities';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../deps';
import { sendRendered } from '../http/response-cache';
import { defineRoute, type Route } from '../http/route';
import { DbPath } from './schemas';

/**
 * The route takes no parameters, and a parameter is 400 rather than ignored: the answer is always
 * the whole schema, and a client sending `?type=book` (thinking it filters) must not read every type
 * as the answer to its question.
 */
const NoQuery = Type.Object({}, { additionalProperties: false });

/** The answer's own digest: equal for equal answers, whoever asked; a change of what the caller sees gives a new one. */
const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

/** A database's types and property definitions in one call, for the client SDK. */
export function schemaRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/{db}/schema',
      operationId: 'getDatabaseSchema',
      summary:
        'The types of the database the caller may read (meta-types included), each with the property definitions the caller may read: ' +
        'name, value type, `list`, `multilingual`, `search`, `mandatory`, `readonly`, and `formula` / `reference_query` when defined. ' +
        'Types by name; properties by `ordinal`, then name. Anonymous callers see `public` types and definitions only. ' +
        'Served from the schema cache; `ETag` with `If-None-Match` answers 304.',
      tags: ['entities'],
      params: DbPath,
      query: NoQuery,
      responses: {
        200: { description: 'The types and their definitions, as the caller may read them.', schema: DatabaseSchemaSchema },
        304: { description: 'Not modified: `If-None-Match` names the current `ETag`.' },
        400: { description: 'A query parameter was given; this route takes none.' },
        401: { description: 'Expired, forged or revoked token (without one the request is anonymous).' },
        403: { description: 'The token does not grant this database.' },
        404: { description: 'No such database.' },
      },
      handler: async ({ params, tenant, req, res }) => {
        const body = JSON.stringify(await describeDatabaseSchema(deps, tenant));
        // Not the response cache (keyed by the database token, replaced by every write of any
        // entity): the schema cache is current until a type or definition changes, and rendering
        // from it is cheap. `private, no-cache` (sendRendered): what a caller sees depends on its rights.
        sendRendered(req, res, { body, etag: etagOf(body), hit: false });
      },
    }),
  ];
}
