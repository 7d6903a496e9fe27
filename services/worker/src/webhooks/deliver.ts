import { createHmac } from 'node:crypto';
import type { Config } from '@entia/config';
import { isWebhookEntity, webhookOf } from '@entia/domain';
import type { JobData, JobResult } from '@entia/jobs';
import type { DatabaseRecords, DeliveryStatus, Store } from '@entia/store';
import { UnrecoverableError, type Job } from 'bullmq';
import { OutboundError, parseAllowedHosts, post, type AllowedHosts } from './outbound';

/** The longest wait between two attempts of a delivery. */
export const MAX_BACKOFF_MS = 60 * 60 * 1000;
/** The BullMQ backoff type of webhook deliveries (`webhookBackoff`). */
export const WEBHOOK_BACKOFF = 'webhook';
/** Longest `lastError` kept in the delivery log. */
const MAX_ERROR = 500;

export interface DeliverySettings {
  allowed: AllowedHosts;
  timeoutMs: number;
  /** How long after the change it is retried. */
  retryMs: number;
  /** The first retry's delay; each further one doubles it, up to `MAX_BACKOFF_MS`. */
  backoffMs: number;
}

export function deliverySettings(config: Pick<Config, 'WEBHOOK_ALLOWED_HOSTS' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_RETRY_SECONDS' | 'WEBHOOK_BACKOFF_MS'>): DeliverySettings {
  return {
    allowed: parseAllowedHosts(config.WEBHOOK_ALLOWED_HOSTS),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryMs: config.WEBHOOK_RETRY_SECONDS * 1000,
    backoffMs: config.WEBHOOK_BACKOFF_MS,
  };
}

/** The wait after the `failures`-th failed attempt: `backoffMs` × 2^(failures − 1), at most an hour. */
export function backoffDelay(backoffMs: number, failures: number): number {
  return Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** Math.max(0, Math.min(failures - 1, 40)));
}

/**
 * The worker's custom BullMQ backoff (`settings.backoffStrategy`): `backoffDelay` for webhook
 * deliveries; any other custom type is not retried (-1), as BullMQ refuses unknown types.
 */
export function webhookBackoff(backoffMs: number): (attemptsMade: number, type?: string) => number {
  return (attemptsMade, type) => (type === WEBHOOK_BACKOFF ? backoffDelay(backoffMs, attemptsMade) : -1);
}

/**
 * The options a delivery job is enqueued with: retried until it is given up (by time: the
 * processor throws `UnrecoverableError` then), kept an hour once done, so that a change read again
 * by the dispatcher (a claim after a crash) finds its job and adds none.
 */
export const DELIVERY_JOB_OPTIONS = {
  attempts: 100_000,
  backoff: { type: WEBHOOK_BACKOFF },
  removeOnComplete: { age: 3600 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** `Entia-Signature`'s `v1`: hex HMAC-SHA256 of `<timestamp>.<body>` with the webhook's secret. */
export function signatureOf(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The headers of one attempt: the body is JSON, signed with the time it was sent. */
export function deliveryHeaders(secret: string, eventId: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'Content-Type': 'application/json',
    'Entia-Event-Id': eventId,
    'Entia-Timestamp': String(timestamp),
    'Entia-Signature': `t=${timestamp},v1=${signatureOf(secret, timestamp, body)}`,
  };
}

/** An error as the delivery log keeps it: bounded, and never with the secret in it. */
function logged(message: string, secret: string): string {
  const clean = secret === '' ? message : message.split(secret).join('***');
  return clean.length <= MAX_ERROR ? clean : `${clean.slice(0, MAX_ERROR - 1)}…`;
}

export interface DeliverDeps {
  store: Store;
  records: DatabaseRecords;
  webhookDelivery: DeliverySettings;
}

type DeliverJob = Job<JobData<'deliver-webhook'>, JobResult<'deliver-webhook'>, 'deliver-webhook'>;

/**
 * One attempt to deliver a change to a webhook (issue 18). The webhook is read fresh: deleted or
 * made inactive since the change, nothing is sent. Each attempt is recorded in the delivery log.
 * A 2xx is delivered; anything else (another status, a 3xx included: redirects are not followed,
 * no answer in time, a connection error) is retried with backoff until WEBHOOK_RETRY_SECONDS
 * after the change, then given up (`UnrecoverableError`). A refused address is given up at once:
 * it does not become allowed by waiting.
 */
export async function deliverWebhook(deps: DeliverDeps, job: DeliverJob): Promise<JobResult<'deliver-webhook'>> {
  const { db, webhook: id, event } = job.data;
  const settings = deps.webhookDelivery;
  const record = await deps.records.get(db);
  const found = record ? await deps.store.entities(db).get(id) : undefined;
  const webhook = record && found && isWebhookEntity(record.meta, found.entity.properties) ? webhookOf(found.entity) : undefined;
  if (!webhook) return { delivered: false, skipped: 'gone' };
  if (!webhook.active) {
    // Switched off while it was being retried: the log says the retries stopped.
    if (job.attemptsMade > 0) await deps.store.deliveries(db).abandon(id, event.id, 'not attempted again: the webhook is inactive');
    return { delivered: false, skipped: 'inactive' };
  }

  const body = JSON.stringify(event);
  const attemptedAt = new Date();
  let status: number | undefined;
  let error: string | undefined;
  let refused = false;
  try {
    ({ status } = await post(webhook.url, body, deliveryHeaders(webhook.secret, event.id, body, attemptedAt.getTime()), settings));
    if (status < 200 || status > 299) error = status >= 300 && status < 400 ? `answered ${status}: redirects are not followed` : `answered ${status}`;
  } catch (failure) {
    error = failure instanceof Error ? failure.message : String(failure);
    refused = failure instanceof OutboundError && failure.refused;
  }
  const delivered = error === undefined;
  const failures = job.attemptsMade + 1;
  const givenUp = !delivered && (refused || Date.now() + backoffDelay(settings.backoffMs, failures) > Date.parse(event.at) + settings.retryMs);
  const state: DeliveryStatus = delivered ? 'delivered' : givenUp ? 'failed' : 'pending';
  await deps.store.deliveries(db).record({
    webhook: id,
    event: event.id,
    entity: event.entity,
    kind: event.kind,
    status: state,
    // Starts, not failures: an attempt cut short by a worker that died counts too.
    attempts: Math.max(job.attemptsStarted ?? 0, failures),
    ...(status === undefined ? {} : { lastStatus: status }),
    ...(error === undefined ? {} : { lastError: logged(error, webhook.secret) }),
    lastAttemptAt: attemptedAt.toISOString(),
    ...(delivered ? { deliveredAt: new Date().toISOString() } : {}),
  });
  if (delivered) return { delivered: true, status: status! };
  const reason = logged(error!, webhook.secret);
  if (givenUp) throw new UnrecoverableError(refused ? `refused: ${reason}` : `given up: ${reason}`);
  throw new Error(reason);
}
