import { DEFAULT_LIMIT, MAX_LIMIT, MAX_SKIP } from '@entia/domain';
import { entityHistory, existingId } from '@entia/entities';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { DbIdPath, History } from './schemas';

const HistoryQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Changes per page; `0` returns only `count`.' })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SKIP, default: 0, description: 'Changes to skip, newest first.' })),
  },
  { additionalProperties: false },
);

/** An entity's audit history. */
export function historyRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/{db}/entity/{id}/history',
      operationId: 'getEntityHistory',
      summary:
        'Every change of the entity, newest first: values added (`new`), overwritten or replaced (`old` and `new`), deleted (`old`), `_created` and `_deleted`; by whom (`by`, or `worker: true`) and when. Readable by whoever may read the entity; after its deletion by its last owners, for HISTORY_RETENTION_DAYS.',
      tags: ['entities'],
      params: DbIdPath,
      query: HistoryQuery,
      responses: {
        200: { description: 'One page of changes; `count` counts all of them.', schema: History },
        400: { description: 'A malformed `limit` or `skip`.' },
        401: { description: 'Expired, forged or revoked token.' },
        404: { description: 'No such database or entity, or the caller may not read it.' },
      },
      handler: async ({ params, query, tenant, req, res }) => {
        const page = await entityHistory(deps, tenant, existingId(params.id, 'entity'), query.limit ?? DEFAULT_LIMIT, query.skip ?? 0);
        // Rows a worker records later change the page without a write to the entity: never cached.
        res.set('Cache-Control', 'no-store').json(page);
      },
    }),
  ];
}
