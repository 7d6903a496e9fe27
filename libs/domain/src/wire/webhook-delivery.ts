import { Type } from '@sinclair/typebox';
import { CHANGE_KINDS } from '../changes/record';
import { ObjectIdSchema } from './identifiers';

/** One change sent to a webhook, as its last attempt left it. */
export const WebhookDeliverySchema = Type.Object({
  event: Type.String({ description: 'The event id of the change (as the change feed and the `Entia-Event-Id` header give it).' }),
  entity: ObjectIdSchema,
  kind: Type.Union(CHANGE_KINDS.map((kind) => Type.Literal(kind))),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')], {
    description: '`pending`: attempted, retried with backoff; `delivered`: a 2xx answered; `failed`: given up (WEBHOOK_RETRY_SECONDS passed, or the address is refused).',
  }),
  attempts: Type.Integer({ minimum: 1, description: 'Requests tried so far.' }),
  lastStatus: Type.Optional(Type.Integer({ description: 'The HTTP status of the last answer, when there was one.' })),
  lastError: Type.Optional(Type.String({ description: 'Why the last attempt failed: a status, a timeout, a refused address.' })),
  lastAttemptAt: Type.String({ format: 'date-time' }),
  deliveredAt: Type.Optional(Type.String({ format: 'date-time' })),
});

/** One page of a webhook's delivery log, the latest attempt first; `count` is every delivery recorded. */
export const WebhookDeliveriesSchema = Type.Object({
  deliveries: Type.Array(WebhookDeliverySchema),
  count: Type.Integer(),
});
