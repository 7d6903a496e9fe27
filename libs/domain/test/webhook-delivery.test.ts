import {
  MAX_BACKOFF_MS,
  MAX_DELIVERY_ERROR,
  answerProblem,
  backoffDelay,
  deliveryErrorOf,
  deliveryStateAfter,
  webhookDeliveryOf,
  type AttemptResult,
  type ChangeRecord,
  type DeliveryState,
  type Webhook,
} from '@entia/domain';
import { OWNER, STRANGER, hexId, propertiesWith, val } from './fixtures';

/** The rules of delivering a change to a webhook (issue 18): which changes it receives, when an attempt is given up, what the log keeps. */

const CREATED = '2026-03-01T12:00:00.000Z';

const webhook = (overrides: Partial<Webhook> = {}): Webhook => ({
  id: hexId(0x9a1),
  url: 'https://hooks.example.com/entia',
  filters: [],
  secret: 'a-secret-of-24-characters',
  active: true,
  owners: [OWNER],
  createdAt: CREATED,
  ...overrides,
});

const readableBy = (owner: string) => ({ properties: propertiesWith({ owner: [owner], editor: [], expander: [], viewer: [], extra: { pages: [val('pages', { number: 1 })] } }), partial: [] });

const change = (at: string, owner = OWNER): ChangeRecord => ({
  key: 'k',
  entity: hexId(0xb1),
  type: hexId(0xe2),
  kind: 'created',
  version: 1,
  at,
  by: OWNER,
  properties: ['pages'],
  after: readableBy(owner),
});

describe('webhookDeliveryOf: which changes a webhook receives', () => {
  it.each<[string, Partial<Webhook>, ChangeRecord, 'in-view' | undefined]>([
    ['a change after its creation, readable by its owner', {}, change('2026-03-01T12:00:01.000Z'), 'in-view'],
    ['a change at the moment of its creation', {}, change(CREATED), 'in-view'],
    ['a change before its creation', {}, change('2026-03-01T11:59:59.999Z'), undefined],
    ['a change while it is switched off', { active: false }, change('2026-03-01T12:00:01.000Z'), undefined],
    ['a change its owners may not read', {}, change('2026-03-01T12:00:01.000Z', STRANGER), undefined],
    ['any change, for a webhook whose creation time is unknown', { createdAt: '' }, change('2000-01-01T00:00:00.000Z'), 'in-view'],
  ])('%s', (_what, overrides, record, expected) => {
    expect(webhookDeliveryOf(webhook(overrides), record)).toBe(expected);
  });
});

describe('backoffDelay: doubling from the first delay, at most an hour', () => {
  it.each([
    [1000, 1, 1000],
    [1000, 2, 2000],
    [1000, 5, 16_000],
    [1000, 0, 1000],
    [1000, 30, MAX_BACKOFF_MS],
    [1000, 10_000, MAX_BACKOFF_MS],
  ])('backoff %i ms after %i failures: %i ms', (backoffMs, failures, expected) => {
    expect(backoffDelay(backoffMs, failures)).toBe(expected);
  });
});

describe('answerProblem: only a 2xx is a delivery', () => {
  it.each<[number, string | undefined]>([
    [200, undefined],
    [204, undefined],
    [299, undefined],
    [199, 'answered 199'],
    [301, 'answered 301: redirects are not followed'],
    [399, 'answered 399: redirects are not followed'],
    [404, 'answered 404'],
    [500, 'answered 500'],
  ])('%i', (status, expected) => {
    expect(answerProblem(status)).toBe(expected);
  });
});

describe('deliveryStateAfter: delivered, retried, or given up', () => {
  const CHANGED = '2026-03-01T12:00:00.000Z';
  const at = (offsetMs: number) => Date.parse(CHANGED) + offsetMs;
  const policy = { retryMs: 60_000, backoffMs: 1000 };
  const failed: AttemptResult = { delivered: false, refused: false };
  it.each<[string, AttemptResult, number, number, DeliveryState]>([
    ['a 2xx is delivered, however late', { delivered: true }, 50, at(10 * 60_000), 'delivered'],
    ['a failure with time left is retried', failed, 1, at(0), 'pending'],
    ['a failure whose next attempt falls exactly at the limit is retried', failed, 1, at(59_000), 'pending'],
    ['a failure whose next attempt would fall past the limit is given up', failed, 1, at(59_001), 'failed'],
    ['the growing backoff counts: the 6th failure waits 32 s', failed, 6, at(28_001), 'failed'],
    ['a refused address is given up at once', { delivered: false, refused: true }, 1, at(0), 'failed'],
  ])('%s', (_what, result, failures, now, expected) => {
    expect(deliveryStateAfter(result, { failures, now, changedAt: CHANGED }, policy)).toBe(expected);
  });
});

describe('deliveryErrorOf: what the log keeps of an error', () => {
  const SECRET = 'a-secret-of-24-characters';
  it.each<[string, string, string, string]>([
    ['a short message as it is', 'answered 500', SECRET, 'answered 500'],
    ['the secret masked wherever it appears', `bad ${SECRET} and ${SECRET}`, SECRET, 'bad *** and ***'],
    ['nothing masked for an empty secret', 'answered 500', '', 'answered 500'],
    ['a long message cut, with an ellipsis', 'x'.repeat(MAX_DELIVERY_ERROR + 10), SECRET, `${'x'.repeat(MAX_DELIVERY_ERROR - 1)}…`],
    ['a message of exactly the bound kept whole', 'y'.repeat(MAX_DELIVERY_ERROR), SECRET, 'y'.repeat(MAX_DELIVERY_ERROR)],
  ])('%s', (_what, message, secret, expected) => {
    expect(deliveryErrorOf(message, secret)).toBe(expected);
  });
});
