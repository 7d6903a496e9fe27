import { ANY_PROPERTY_NAME_PATTERN, MAX_DUPLICATES } from '@entia/domain';
import { duplicateEntity, existingId } from '@entia/entities';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { DbIdPath, WriteResponse } from './schemas';

// A type has far fewer properties than this; a longer list is a mistake or an attack, refused before any read.
const MAX_IGNORED = 200;

const DuplicateBody = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DUPLICATES, default: 1, description: `How many copies (1 to ${MAX_DUPLICATES}); all are made or none.` })),
    ignoredProperties: Type.Optional(
      Type.Array(Type.String({ pattern: ANY_PROPERTY_NAME_PATTERN }), {
        maxItems: MAX_IGNORED,
        default: [],
        description: 'Properties the copies do not take from the source: names its type defines, or system properties; `_type` and unknown names are 400.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Optional: without a body, one copy of everything that is copied.' },
);

const Duplicated = Type.Object({ entities: Type.Array(WriteResponse, { description: 'The copies, each with its values as stored.' }) });

/** POST /api/{db}/entity/{id}/duplicate. */
export function duplicateRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/{db}/entity/{id}/duplicate',
      operationId: 'duplicateEntity',
      summary:
        'Create `count` copies of an entity the caller can read, each by the rules of a create: the caller owns them; rights, `_created`, `_api_key` and ' +
        'formula values are not copied (formulas are recomputed); `_parent` needs `_expander` on each parent unless ignored; file values get their own ' +
        'copy of the bytes. Types and property definitions are not duplicated. All or nothing.',
      tags: ['entities'],
      params: DbIdPath,
      body: DuplicateBody,
      optionalBody: true,
      responses: {
        201: { description: 'The copies.', schema: Duplicated },
        400: { description: 'Invalid `count` or `ignoredProperties`, a type or definition as source, or a copy a create would refuse; nothing was written.' },
        401: { description: 'Not signed in (or an expired, forged or revoked token).' },
        403: { description: 'The caller lacks `_expander` on a `_parent` of the source (ignore `_parent` to duplicate without it).' },
        404: { description: 'No such database or entity, or the caller may not read it.' },
      },
      handler: async ({ params, body, tenant, res }) => {
        const request = { count: body.count ?? 1, ignoredProperties: body.ignoredProperties ?? [] };
        res.status(201).json(await duplicateEntity(deps, tenant, existingId(params.id, 'entity'), request));
      },
    }),
  ];
}
