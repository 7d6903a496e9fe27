import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { boundedCache, changeEventOf, webhookDeliveryOf, webhookOf, type BoundedCache, type ChangeRecord, type MetaTypes, type Webhook } from '@entia/domain';
import { ChangeLogGroup, GroupMissing, isRedisUnavailable, type ChangeLog, type JobProducer, type LogEntry, type RedisBreaker } from '@entia/jobs';
import { databasesWithWebhooks } from '@entia/entities';
import type { Store } from '@entia/store';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { DELIVERY_JOB_OPTIONS } from './deliver';

/** The consumer group of every worker's dispatcher on each database's change log. */
export const WEBHOOK_GROUP = 'webhooks';

export interface DispatcherDeps {
  store: Store;
  jobs: JobProducer;
  changes: ChangeLog<ChangeRecord>;
  breaker: RedisBreaker;
  logger: Logger;
}

export interface DispatcherOptions {
  /** How long one read waits for events (and so how soon `stop` returns). */
  blockMs?: number;
  /** How often the databases (and so the logs to read) are listed again. */
  refreshMs?: number;
  /** Events handed to a consumer this long ago and not acknowledged are taken over (it died). */
  claimIdleMs: number;
  /** How long a database's list of webhooks is used before it is read again (the `webhooks` cache policy's ttl unless given). */
  cacheMs?: number;
  /** Events read per database at a time. */
  batch?: number;
}

/** The job id of a change's delivery to a webhook: the same change read twice enqueues nothing new. */
export const deliveryJobId = (webhook: string, eventId: string) => `webhook-${webhook}-${eventId}`;

/**
 * The webhooks of each database, read again after `cacheMs` (the `webhooks` ttl; 0: every time), or
 * at once when a change of a webhook comes by (a new one receives the changes after its own creation).
 * Exported for the test of its bound.
 */
export class WebhookDirectory {
  private readonly cached: BoundedCache<string, Webhook[], MetaTypes>;
  private readonly always: boolean;

  /** `cacheMs`: the policy's unless given. */
  constructor(store: Store, cacheMs?: number) {
    // lru-cache has no ttl of 0 (it would read it as "forever").
    this.always = cacheMs === 0;
    this.cached = boundedCache('webhooks', {
      ttl: cacheMs === undefined ? undefined : Math.max(cacheMs, 1),
      load: async (db, meta) => (await store.entities(db).ofType(meta.webhook!)).flatMap((entity) => webhookOf(entity) ?? []),
    });
  }

  async of(db: string, meta: MetaTypes, record: ChangeRecord): Promise<Webhook[]> {
    if (meta.webhook === undefined) return [];
    return (await this.cached.fetch(db, { context: meta, forceRefresh: this.always || record.type === meta.webhook })) ?? [];
  }
}

/**
 * Turns the changes of every database into webhook deliveries: reads the change logs
 * as one consumer of the group `webhooks` (so each change is dispatched by one worker), enqueues a
 * `deliver-webhook` job per webhook the change concerns, then acknowledges it. A worker that dies
 * before acknowledging leaves its changes pending in the group, and another (or its successor)
 * takes them over after `claimIdleMs`: every change is dispatched at least once, and the job ids
 * make a second dispatch send nothing twice.
 */
export class WebhookDispatcher {
  private readonly group: ChangeLogGroup<ChangeRecord>;
  private readonly directory: WebhookDirectory;
  private readonly blockMs: number;
  private readonly refreshMs: number;
  private readonly batch: number;
  /** The databases that can have webhooks, with their meta-types; their logs are read. */
  private databases = new Map<string, MetaTypes>();
  private readonly joined = new Set<string>();
  private nextRefresh = 0;
  private nextClaim = 0;
  private stopped = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: DispatcherDeps,
    /** A connection of its own: reads block on it. */
    private readonly connection: Redis,
    private readonly options: DispatcherOptions,
  ) {
    this.group = new ChangeLogGroup(deps.changes, deps.breaker, WEBHOOK_GROUP, `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`);
    this.directory = new WebhookDirectory(deps.store, options.cacheMs);
    this.blockMs = options.blockMs ?? 1000;
    this.refreshMs = options.refreshMs ?? 2000;
    this.batch = options.batch ?? 100;
  }

  start(): this {
    this.running = this.loop();
    return this;
  }

  /** Stops reading (within one read's wait); changes read and not yet acknowledged are taken over later. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.connection.disconnect();
    // A read pending while Redis is away is never answered once its connection is closed (ioredis
    // does not fail it): waiting for the loop is bounded, whatever it is stuck on.
    const bound = new AbortController();
    await Promise.race([this.running, sleep(this.blockMs + 1000, undefined, { signal: bound.signal }).catch(() => undefined)]);
    // The bound is not left ticking: it would keep a process that has stopped alive for a second.
    bound.abort();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        if (Date.now() >= this.nextRefresh) await this.refresh();
        if (Date.now() >= this.nextClaim) await this.claimIdle();
        if (this.joined.size === 0) {
          await sleep(this.blockMs);
          continue;
        }
        const arrived = await this.group.read(this.connection, [...this.joined], this.blockMs, this.batch);
        for (const [db, entries] of arrived) await this.dispatch(db, entries);
      } catch (err) {
        if (this.stopped) break;
        if (err instanceof GroupMissing) {
          // Redis lost the groups (or a log was deleted): join every log again.
          this.joined.clear();
          this.nextRefresh = 0;
        } else if (isRedisUnavailable(err)) {
          this.deps.logger.debug({ err }, 'webhook dispatcher: Redis unavailable');
        } else {
          this.deps.logger.warn({ err }, 'webhook dispatcher: round failed; trying again');
        }
        await sleep(Math.min(this.blockMs, 1000));
      }
    }
  }

  /** Lists the databases again (those created before webhooks existed have none) and joins the group on new ones. */
  private async refresh(): Promise<void> {
    this.databases = await databasesWithWebhooks(this.deps.store);
    for (const db of [...this.joined]) if (!this.databases.has(db)) this.joined.delete(db);
    for (const db of this.databases.keys()) {
      if (this.joined.has(db)) continue;
      await this.group.join(db);
      this.joined.add(db);
    }
    this.nextRefresh = Date.now() + this.refreshMs;
  }

  /** Takes over what a dead (or stuck) consumer left unacknowledged, this one's own failures included. */
  private async claimIdle(): Promise<void> {
    for (const db of this.joined) {
      const entries = await this.group.claim(db, this.options.claimIdleMs, this.batch);
      if (entries.length > 0) await this.dispatch(db, entries);
    }
    this.nextClaim = Date.now() + Math.max(1000, Math.min(this.options.claimIdleMs / 2, 10_000));
  }

  /**
   * Enqueues the deliveries of these changes, then acknowledges them. On any failure nothing is
   * acknowledged: the changes stay pending and are claimed again after `claimIdleMs`.
   */
  private async dispatch(db: string, entries: LogEntry<ChangeRecord>[]): Promise<void> {
    const meta = this.databases.get(db);
    try {
      for (const entry of entries) if (meta) await this.dispatchOne(db, meta, entry);
      await this.group.ack(db, entries.map((entry) => entry.position));
    } catch (err) {
      if (err instanceof GroupMissing) throw err;
      this.deps.logger.warn({ err, db }, 'webhook dispatcher: could not dispatch changes; they are taken up again later');
    }
  }

  private async dispatchOne(db: string, meta: MetaTypes, entry: LogEntry<ChangeRecord>): Promise<void> {
    const { record } = entry;
    for (const webhook of await this.directory.of(db, meta, record)) {
      const delivery = webhookDeliveryOf(webhook, record);
      if (delivery === undefined) continue;
      const event = changeEventOf(entry.id, db, record, delivery);
      await this.deps.jobs.enqueue('deliver-webhook', { db, webhook: webhook.id, event }, deliveryJobId(webhook.id, entry.id), DELIVERY_JOB_OPTIONS);
    }
  }
}
