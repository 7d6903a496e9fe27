import type { Collection, Db } from 'mongodb';
import { ensureIndexes, type IndexDefinition } from './indexes';
import { TENANT_COLLECTIONS } from './collections';

/** A tenant's `webhook_delivery`: a webhook's deliveries, the latest attempts first. */
export const WEBHOOK_DELIVERY_INDEXES: readonly IndexDefinition[] = [{ key: { webhook: 1, lastAttemptAt: -1, _id: -1 }, name: 'webhook_recent' }];

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * One change sent to one webhook, as its last attempt left it: `pending` while it is
 * retried, `delivered` once a 2xx answered, `failed` once given up.
 */
export interface WebhookDelivery {
  webhook: string;
  /** The change's event id (the change feed's). */
  event: string;
  entity: string;
  kind: string;
  status: DeliveryStatus;
  attempts: number;
  /** The receiver's last HTTP status, when it answered. */
  lastStatus?: number;
  lastError?: string;
  lastAttemptAt: string;
  deliveredAt?: string;
}

/** A delivery as stored: its times as dates, under the id `<webhook>/<event>` (one document per webhook and change, whoever attempts it). */
type DeliveryDocument = Omit<WebhookDelivery, 'lastAttemptAt' | 'deliveredAt'> & { _id: string; lastAttemptAt: Date; deliveredAt?: Date };

const toDelivery = (document: DeliveryDocument): WebhookDelivery => ({
  webhook: document.webhook,
  event: document.event,
  entity: document.entity,
  kind: document.kind,
  status: document.status,
  attempts: document.attempts,
  ...(document.lastStatus === undefined ? {} : { lastStatus: document.lastStatus }),
  ...(document.lastError === undefined ? {} : { lastError: document.lastError }),
  lastAttemptAt: document.lastAttemptAt.toISOString(),
  ...(document.deliveredAt === undefined ? {} : { deliveredAt: document.deliveredAt.toISOString() }),
});

/**
 * The `webhook_delivery` collection of one tenant database: the delivery log its webhooks' owners
 * read. Each attempt replaces its document (upsert), so a retry after a worker was killed, or a
 * second worker's attempt, still leaves one document per webhook and change.
 */
export class WebhookDeliveries {
  private readonly collection: Collection<DeliveryDocument>;

  constructor(
    db: Db,
    private readonly maxTimeMS: number,
  ) {
    this.collection = db.collection<DeliveryDocument>(TENANT_COLLECTIONS.deliveries);
  }

  ensureIndexes(): Promise<string[]> {
    return ensureIndexes(this.collection, WEBHOOK_DELIVERY_INDEXES);
  }

  /** Records an attempt: the document of (webhook, event) as it now is. */
  async record(delivery: WebhookDelivery): Promise<void> {
    const { lastStatus, lastError, deliveredAt, ...always } = delivery;
    const set: Partial<DeliveryDocument> = { ...always, lastAttemptAt: new Date(delivery.lastAttemptAt) };
    const unset: Record<string, ''> = {};
    if (lastStatus === undefined) unset.lastStatus = '';
    else set.lastStatus = lastStatus;
    if (lastError === undefined) unset.lastError = '';
    else set.lastError = lastError;
    if (deliveredAt === undefined) unset.deliveredAt = '';
    else set.deliveredAt = new Date(deliveredAt);
    await this.collection.updateOne(
      { _id: `${delivery.webhook}/${delivery.event}` },
      { $set: set, ...(Object.keys(unset).length > 0 ? { $unset: unset } : {}) },
      { upsert: true, maxTimeMS: this.maxTimeMS },
    );
  }

  /**
   * Marks a delivery that was attempted, and is not attempted again for `reason` (its webhook was
   * switched off), as failed; one never attempted stays unrecorded.
   */
  async abandon(webhook: string, event: string, reason: string): Promise<void> {
    await this.collection.updateOne({ _id: `${webhook}/${event}`, status: 'pending' }, { $set: { status: 'failed', lastError: reason } }, { maxTimeMS: this.maxTimeMS });
  }

  /** One page of the webhook's deliveries, the latest attempt first, and how many there are. */
  async page(webhook: string, limit: number, skip: number): Promise<{ deliveries: WebhookDelivery[]; count: number }> {
    const options = { maxTimeMS: this.maxTimeMS };
    const [documents, count] = await Promise.all([
      limit === 0 ? [] : this.collection.find({ webhook }, { ...options, sort: { webhook: 1, lastAttemptAt: -1, _id: -1 }, skip, limit }).toArray(),
      this.collection.countDocuments({ webhook }, options),
    ]);
    return { deliveries: documents.map(toDelivery), count };
  }

  /** The delivery of `event` to `webhook`, if attempted. */
  async get(webhook: string, event: string): Promise<WebhookDelivery | undefined> {
    const document = await this.collection.findOne({ _id: `${webhook}/${event}` }, { maxTimeMS: this.maxTimeMS });
    return document ? toDelivery(document) : undefined;
  }
}
