import { DEFAULT_LIMIT, MAX_LIMIT, MAX_SKIP, WebhookDeliveriesSchema } from '@entia/domain';
import { existingId, webhookDeliveries } from '@entia/entities';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { DbIdPath } from './schemas';

const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Deliveries per page; `0` returns only `count`.' })),
    skip: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_SKIP, default: 0, description: 'Deliveries to skip, latest attempt first.' })),
  },
  { additionalProperties: false },
);

/** A webhook's delivery log. */
export function webhookRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/{db}/entity/{id}/deliveries',
      operationId: 'getWebhookDeliveries',
      summary:
        'The delivery log of a webhook entity, the latest attempt first: per change sent, its event id, entity and kind, `status` (`pending` while retried, `delivered`, `failed` once given up), `attempts`, the last HTTP status and error. For the owners of the webhook only.',
      tags: ['entities'],
      params: DbIdPath,
      query: DeliveriesQuery,
      responses: {
        200: { description: 'One page of deliveries; `count` counts all of them.', schema: WebhookDeliveriesSchema },
        400: { description: 'A malformed `limit` or `skip`.' },
        401: { description: 'Expired, forged or revoked token.' },
        403: { description: 'The caller may read the webhook but does not own it.' },
        404: { description: 'No such database or entity, the caller may not read it, or it is not a webhook.' },
      },
      handler: async ({ params, query, tenant, res }) => {
        const page = await webhookDeliveries(deps, tenant, existingId(params.id, 'entity'), query.limit ?? DEFAULT_LIMIT, query.skip ?? 0);
        // The worker records attempts without a write to the entity: never cached.
        res.set('Cache-Control', 'no-store').json(page);
      },
    }),
  ];
}
