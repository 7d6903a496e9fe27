import { answerProblem, deliveryErrorOf, deliveryStateAfter, isWebhookEntity, webhookOf, type MetaTypes, type RetryPolicy, type Webhook } from '@entia/domain';
import type { DatabaseRecords, Store } from '@entia/store';

/** What delivering a change talks to: the database's entities and delivery log, and its registry record (cached). */
export interface DeliveryDeps {
  store: Store;
  records: DatabaseRecords;
}

/** One attempt of one change to one webhook: the delivery job's data and how many attempts came before. */
export interface ChangeDelivery {
  db: string;
  webhook: string;
  event: { id: string; at: string; entity: string; kind: string; [field: string]: unknown };
  /** Attempts that ended (failed) before this one. */
  attemptsMade: number;
  /** Attempts started, those a worker that died cut short included; at least `attemptsMade`. */
  attemptsStarted?: number;
}

/** What the receiver answered, or why there was no answer and whether the address was refused (the SSRF guard). */
export type SendResult = { status: number } | { error: string; refused: boolean };

/** The edge's outbound request: POSTs the event's `body`, signed with the webhook's secret at `at`, to its url. Never throws. */
export type SendToWebhook = (request: { webhook: Webhook; eventId: string; body: string; at: Date }) => Promise<SendResult>;

export type DeliveryOutcome =
  | { outcome: 'skipped'; skipped: 'gone' | 'inactive' }
  | { outcome: 'delivered'; status: number }
  /** `givenUp`: not to be tried again; `reason`: bounded, the secret masked. */
  | { outcome: 'failed'; givenUp: boolean; refused: boolean; reason: string };

/**
 * One attempt to deliver a change to a webhook. The webhook is read fresh: deleted or
 * made inactive since the change, nothing is sent (and a delivery that was being retried is marked
 * abandoned). Each attempt is recorded in the delivery log; whether a failure is retried or given
 * up is the domain's `deliveryStateAfter`.
 */
export async function deliverChange(deps: DeliveryDeps, delivery: ChangeDelivery, policy: RetryPolicy, send: SendToWebhook): Promise<DeliveryOutcome> {
  const { db, webhook: id, event } = delivery;
  const record = await deps.records.get(db);
  const found = record ? await deps.store.entities(db).get(id) : undefined;
  const webhook = record && found && isWebhookEntity(record.meta, found.entity.properties) ? webhookOf(found.entity) : undefined;
  if (!webhook) return { outcome: 'skipped', skipped: 'gone' };
  if (!webhook.active) {
    // Switched off while it was being retried: the log says the retries stopped.
    if (delivery.attemptsMade > 0) await deps.store.deliveries(db).abandon(id, event.id, 'not attempted again: the webhook is inactive');
    return { outcome: 'skipped', skipped: 'inactive' };
  }

  const body = JSON.stringify(event);
  const attemptedAt = new Date();
  const sent = await send({ webhook, eventId: event.id, body, at: attemptedAt });
  const status = 'status' in sent ? sent.status : undefined;
  const error = 'status' in sent ? answerProblem(sent.status) : sent.error;
  const refused = 'refused' in sent && sent.refused;
  const failures = delivery.attemptsMade + 1;
  const state = deliveryStateAfter(error === undefined ? { delivered: true } : { delivered: false, refused }, { failures, now: Date.now(), changedAt: event.at }, policy);
  await deps.store.deliveries(db).record({
    webhook: id,
    event: event.id,
    entity: event.entity,
    kind: event.kind,
    status: state,
    // Starts, not failures: an attempt cut short by a worker that died counts too.
    attempts: Math.max(delivery.attemptsStarted ?? 0, failures),
    ...(status === undefined ? {} : { lastStatus: status }),
    ...(error === undefined ? {} : { lastError: deliveryErrorOf(error, webhook.secret) }),
    lastAttemptAt: attemptedAt.toISOString(),
    ...(state === 'delivered' ? { deliveredAt: new Date().toISOString() } : {}),
  });
  if (error === undefined) return { outcome: 'delivered', status: status! };
  return { outcome: 'failed', givenUp: state === 'failed', refused, reason: deliveryErrorOf(error, webhook.secret) };
}

/**
 * The databases whose changes can reach webhooks, with their meta-types: those made before the
 * webhook type existed have none, and their change logs need not be read.
 */
export async function databasesWithWebhooks(store: Store): Promise<Map<string, MetaTypes>> {
  const records = await store.registry.allDatabases();
  return new Map(records.filter((record) => record.meta.webhook !== undefined).map((record) => [record._id, record.meta]));
}
