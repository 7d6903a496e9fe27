import { deliveryOf, type Delivery } from './changes/delivery';
import { parseFeedFilter } from './changes/feed-query';
import type { ChangeRecord } from './changes/record';
import { first, type Entity, type Properties } from './entity';
import { DomainError, forbidden, invalid, type FieldError } from './errors';
import type { Filter } from './query/ast';
import { typeOf, type MetaTypes } from './references';
import { hasRight, holdersOf, type Caller } from './rights';
import type { Value } from './values/types';

/** Longest webhook `url`, in characters. */
export const MAX_WEBHOOK_URL = 2048;
/** Shortest webhook `secret`, in characters: an HMAC key worth the name. */
export const MIN_WEBHOOK_SECRET = 16;

/**
 * A webhook as the worker sends to it: where, what (its `filter` parsed), the HMAC key,
 * whether it is on, who it acts for (its `_owner`s: it receives what they may read), and since when
 * (changes made before its creation are not sent).
 */
export interface Webhook {
  id: string;
  url: string;
  filters: Filter[];
  secret: string;
  active: boolean;
  owners: string[];
  createdAt: string;
}

/** Whether the entity is a webhook of the database; never for a database made before the meta-type existed. */
export function isWebhookEntity(meta: MetaTypes, properties: Properties): boolean {
  return meta.webhook !== undefined && typeOf(properties) === meta.webhook;
}

/**
 * Only the owners of the database (`_owner` of its `database` entity) create or change webhooks:
 * a webhook sends data out of the database. 403: a person of the database can read the
 * `database` entity (it is shared with the domain), so the refusal reveals nothing.
 */
export function assertMayManageWebhooks(database: Properties | undefined, caller: Caller): void {
  if (database === undefined || !hasRight(database, caller, 'owner')) {
    throw forbidden('Creating or changing a webhook needs the owner right on the database entity.');
  }
}

const text = (properties: Properties, name: string): string | undefined => first(properties, name)?.string;

/**
 * Where an error about `name` points: at the value the request wrote (`applyWrite` records them in
 * the order of the items, so the last one of `name` is the item at that index), else at the body.
 */
function pointerOf(written: readonly Value[], name: string, field: string): string {
  for (let index = written.length - 1; index >= 0; index--) if (written[index]!.type === name) return `/${index}/${field}`;
  return '';
}

/** Why `url` cannot be a webhook's address; undefined when it can. */
export function webhookUrlProblem(url: string): string | undefined {
  if (url.length > MAX_WEBHOOK_URL) return `must be at most ${MAX_WEBHOOK_URL} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials (user:password@): sign with the secret instead';
  if (parsed.hostname === '') return 'must name a host';
  return undefined;
}

/** The webhook's `filter` parsed (none: every change its owners may read); throws the parser's `invalid`. */
function filtersOf(filter: string | undefined): Filter[] {
  if (filter === undefined || filter.trim() === '') return [];
  const query = parseFeedFilter(filter);
  if (query.props !== undefined) throw invalid('The filter is invalid.', [{ parameter: 'props', message: 'a webhook delivers no values: props is not allowed' }]);
  return query.filters;
}

/**
 * The rules of a webhook entity as a write leaves it (`properties`; `written`: the request's values,
 * for the pointers): `url` an absolute http(s) URL without credentials, `filter` in the list syntax
 * (without `props`), `secret` at least `MIN_WEBHOOK_SECRET` characters. Throws `invalid` (400)
 * with every problem.
 */
export function checkWebhook(properties: Properties, written: readonly Value[] = []): void {
  const errors: FieldError[] = [];
  const fail = (name: string, message: string) => errors.push({ pointer: pointerOf(written, name, 'string'), message: `"${name}" ${message}` });
  const url = text(properties, 'url');
  if (url === undefined) fail('url', 'is mandatory: the address the changes are POSTed to');
  else {
    const problem = webhookUrlProblem(url);
    if (problem) fail('url', problem);
  }
  const secret = text(properties, 'secret');
  if (secret === undefined) fail('secret', 'is mandatory: the key each delivery is signed with (HMAC-SHA256)');
  else if (secret.length < MIN_WEBHOOK_SECRET) fail('secret', `must be at least ${MIN_WEBHOOK_SECRET} characters`);
  try {
    filtersOf(text(properties, 'filter'));
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const details = error.errors.map((e) => `${e.parameter ?? e.pointer ?? ''}: ${e.message}`).join('; ');
    fail('filter', `is not a filter of the list syntax (a=b&c.number.gte=1): ${details || error.message}`);
  }
  if (errors.length > 0) throw invalid('The webhook is invalid; nothing was written.', errors);
}

/**
 * The webhook an entity stands for, as the worker uses it; undefined when it is not a valid one
 * (it cannot be written so, but a definition may have been changed under it).
 */
export function webhookOf(entity: Entity): Webhook | undefined {
  const { properties } = entity;
  const url = text(properties, 'url');
  const secret = text(properties, 'secret');
  if (url === undefined || secret === undefined || webhookUrlProblem(url) !== undefined) return undefined;
  let filters: Filter[];
  try {
    filters = filtersOf(text(properties, 'filter'));
  } catch {
    return undefined;
  }
  return {
    id: entity._id,
    url,
    filters,
    secret,
    active: first(properties, 'active')?.boolean !== false,
    owners: holdersOf(properties, '_owner'),
    createdAt: first(properties, '_created')?.datetime ?? '',
  };
}

/**
 * How a change reaches a webhook, or undefined when it does not: nothing while the
 * webhook is switched off, nothing of what happened before it was created (not its business), and
 * otherwise what its owners may read of the change through its filters (`deliveryOf`).
 */
export function webhookDeliveryOf(webhook: Webhook, record: ChangeRecord): Delivery | undefined {
  if (!webhook.active || Date.parse(record.at) < (Date.parse(webhook.createdAt) || 0)) return undefined;
  return deliveryOf(record, webhook.owners.map((personId) => ({ personId })), webhook.filters);
}

/** The longest wait between two attempts of a delivery. */
export const MAX_BACKOFF_MS = 60 * 60 * 1000;

/** The wait after the `failures`-th failed attempt: `backoffMs` × 2^(failures − 1), at most an hour. */
export function backoffDelay(backoffMs: number, failures: number): number {
  return Math.min(MAX_BACKOFF_MS, backoffMs * 2 ** Math.max(0, Math.min(failures - 1, 40)));
}

/** Why an answer of the receiver is not a delivery; undefined for a 2xx. Redirects are not followed. */
export function answerProblem(status: number): string | undefined {
  if (status >= 200 && status <= 299) return undefined;
  return status >= 300 && status < 400 ? `answered ${status}: redirects are not followed` : `answered ${status}`;
}

/** Where a delivery stands after an attempt, as its log says it. */
export type DeliveryState = 'delivered' | 'pending' | 'failed';

/** An attempt's result: a 2xx, or why not and whether the address was refused (the SSRF guard). */
export type AttemptResult = { delivered: true } | { delivered: false; refused: boolean };

export interface RetryPolicy {
  /** How long after the change it is retried. */
  retryMs: number;
  /** The first retry's delay; each further one doubles it, up to `MAX_BACKOFF_MS`. */
  backoffMs: number;
}

/**
 * Where a delivery stands after its `failures`-th attempt (this one included) at `now`: delivered;
 * or given up (`failed`) when the address was refused (it does not become allowed by waiting) or
 * when the next attempt would come later than `retryMs` after the change; else retried (`pending`).
 */
export function deliveryStateAfter(result: AttemptResult, attempt: { failures: number; now: number; changedAt: string }, policy: RetryPolicy): DeliveryState {
  if (result.delivered) return 'delivered';
  if (result.refused) return 'failed';
  return attempt.now + backoffDelay(policy.backoffMs, attempt.failures) > Date.parse(attempt.changedAt) + policy.retryMs ? 'failed' : 'pending';
}

/** Longest error kept in the delivery log. */
export const MAX_DELIVERY_ERROR = 500;

/** An error as the delivery log keeps it (and the job fails with): bounded, and never with the webhook's secret in it. */
export function deliveryErrorOf(message: string, secret: string): string {
  const clean = secret === '' ? message : message.split(secret).join('***');
  return clean.length <= MAX_DELIVERY_ERROR ? clean : `${clean.slice(0, MAX_DELIVERY_ERROR - 1)}…`;
}
