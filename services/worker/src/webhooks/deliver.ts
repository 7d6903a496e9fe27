import { createHmac } from 'node:crypto';
import type { Config } from '@entia/config';
import { MAX_BACKOFF_MS, backoffDelay, type RetryPolicy } from '@entia/domain';
import { deliverChange, type DeliveryDeps, type SendToWebhook } from '@entia/entities';
import type { JobData, JobResult } from '@entia/jobs';
import { UnrecoverableError, type Job } from 'bullmq';
import { OutboundError, parseAllowedHosts, post, type AllowedHosts } from './outbound';

/** The BullMQ backoff type of webhook deliveries (`webhookBackoff`). */
export const WEBHOOK_BACKOFF = 'webhook';
/** The outbound request's bounds and the retry policy of deliveries. */
export interface DeliverySettings extends RetryPolicy {
  allowed: AllowedHosts;
  timeoutMs: number;
}

export interface DeliverDeps extends DeliveryDeps {
  webhookDelivery: DeliverySettings;
}

// The rules are the domain's; re-exported for the worker's settings and their tests.
export { MAX_BACKOFF_MS, backoffDelay };

export function deliverySettings(config: Pick<Config, 'WEBHOOK_ALLOWED_HOSTS' | 'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_RETRY_SECONDS' | 'WEBHOOK_BACKOFF_MS'>): DeliverySettings {
  return {
    allowed: parseAllowedHosts(config.WEBHOOK_ALLOWED_HOSTS),
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    retryMs: config.WEBHOOK_RETRY_SECONDS * 1000,
    backoffMs: config.WEBHOOK_BACKOFF_MS,
  };
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

type DeliverJob = Job<JobData<'deliver-webhook'>, JobResult<'deliver-webhook'>, 'deliver-webhook'>;

/** The outbound request of the use case: signed, SSRF-safe (`post`); what went wrong is an answer, never thrown. */
function sender(settings: DeliverySettings): SendToWebhook {
  return async ({ webhook, eventId, body, at }) => {
    try {
      const { status } = await post(webhook.url, body, deliveryHeaders(webhook.secret, eventId, body, at.getTime()), settings);
      return { status };
    } catch (failure) {
      return { error: failure instanceof Error ? failure.message : String(failure), refused: failure instanceof OutboundError && failure.refused };
    }
  };
}

/**
 * The `deliver-webhook` job: one attempt of `deliverChange`. A failure is retried with
 * backoff (BullMQ's, `webhookBackoff`) until the use case gives it up, then `UnrecoverableError`
 * stops the retries; a refused address is given up at once.
 */
export async function deliverWebhook(deps: DeliverDeps, job: DeliverJob): Promise<JobResult<'deliver-webhook'>> {
  const settings = deps.webhookDelivery;
  const attempt = { ...job.data, attemptsMade: job.attemptsMade, ...(job.attemptsStarted === undefined ? {} : { attemptsStarted: job.attemptsStarted }) };
  const result = await deliverChange(deps, attempt, settings, sender(settings));
  if (result.outcome === 'skipped') return { delivered: false, skipped: result.skipped };
  if (result.outcome === 'delivered') return { delivered: true, status: result.status };
  if (result.givenUp) throw new UnrecoverableError(result.refused ? `refused: ${result.reason}` : `given up: ${result.reason}`);
  throw new Error(result.reason);
}
