import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisBreaker } from './breaker';

/** Anything published: `key` names the change it tells of, so that publishing it twice is a no-op. */
export interface Publishable {
  key: string;
}

/** One event of a database's change log. */
export interface LogEntry<T> {
  /** The event id clients see and resume after: the stream position and the log's epoch. */
  id: string;
  /** The position in the Redis stream (`<ms>-<seq>`), monotonic within the log. */
  position: string;
  record: T;
}

/** Where a subscriber resuming after an event id starts: after a position, or told to reload. */
export type Resume = { from: string } | { reset: string };

export interface RetentionSettings {
  /** Events kept per database, the oldest dropped first. */
  maxEvents: number;
  /** Events older than this are dropped (0: kept until `maxEvents` pushes them out). */
  maxAgeMs: number;
}

/** A stream position, e.g. `1732560000000-0`. */
const POSITION = /^(\d{1,20})-(\d{1,20})$/;
const EVENT_ID = /^(\d{1,20}-\d{1,20})\.([0-9a-f]{16})$/;

/** Orders two stream positions (`a` before `b`: negative). */
export function comparePositions(a: string, b: string): number {
  const [, am, as] = POSITION.exec(a)!;
  const [, bm, bs] = POSITION.exec(b)!;
  const ms = BigInt(am!) - BigInt(bm!);
  const seq = ms === 0n ? BigInt(as!) - BigInt(bs!) : ms;
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}

const eventId = (position: string, epoch: string) => `${position}.${epoch}`;

// Adds the record unless its key was published already (then answers the first publication), and
// takes back its intent (`intend`),
// trims the log by count and by age, in one step so that two publishers of one change (the API's
// request and the worker's settle) cannot both add it. What it trims moves the `dropped` mark to
// the newest event dropped: a subscriber that saw an event before it has missed some. The epoch is
// the log's identity: a Redis that lost its data starts a new one, and ids of the old one then ask
// for a reset.
const PUBLISH = `
local epoch = redis.call('GET', KEYS[2])
if not epoch then
  epoch = ARGV[4]
  redis.call('SET', KEYS[2], epoch)
end
redis.call('HDEL', KEYS[5], ARGV[6])
redis.call('ZREM', KEYS[6], ARGV[6])
local seen = redis.call('GET', KEYS[3])
if seen then return {seen, epoch} end
local excess = redis.call('XLEN', KEYS[1]) + 1 - tonumber(ARGV[2])
if excess > 0 then
  local oldest = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', excess)
  redis.call('SET', KEYS[4], oldest[#oldest][1])
end
local position = redis.call('XADD', KEYS[1], 'MAXLEN', '=', ARGV[2], '*', 'r', ARGV[1])
local age = tonumber(ARGV[3])
if age > 0 then
  local now = redis.call('TIME')
  local limit = string.format('%.0f', tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) - age) .. '-0'
  local older = redis.call('XREVRANGE', KEYS[1], '(' .. limit, '-', 'COUNT', 1)
  if #older > 0 then
    redis.call('SET', KEYS[4], older[1][1])
    redis.call('XTRIM', KEYS[1], 'MINID', '=', limit)
  end
end
redis.call('SET', KEYS[3], position, 'EX', ARGV[5])
return {position, epoch}
`;

// Drops a database from the intending set when it has no intent left.
const FORGET_IDLE = `
if redis.call('ZCARD', KEYS[2]) > 0 then return 1 end
redis.call('SREM', KEYS[1], ARGV[1])
return 0
`;

type Fields = [string, string[]][];

/**
 * The change log of each database: a Redis stream per database, shared by every API
 * replica and the worker, bounded by `RetentionSettings`. Every call but `tail` goes through the
 * breaker (fails at once while Redis is away); `tail` blocks, so it takes a connection of its own.
 */
export class ChangeLog<T extends Publishable> {
  constructor(
    private readonly breaker: RedisBreaker,
    private readonly prefix: string,
    private readonly retention: RetentionSettings,
  ) {}

  /** The stream of `db`. Hash-tagged by database, so a cluster keeps a log and its keys together. */
  streamKey(db: string): string {
    return `${this.prefix}:changes:{${db}}:log`;
  }

  private epochKey(db: string): string {
    return `${this.prefix}:changes:{${db}}:epoch`;
  }

  private droppedKey(db: string): string {
    return `${this.prefix}:changes:{${db}}:dropped`;
  }

  /** Records to be published once the write they tell of is known to be stored (`intend`), by key. */
  private intentsKey(db: string): string {
    return `${this.prefix}:changes:{${db}}:intents`;
  }

  /** The keys of `intentsKey`, by when they were intended. */
  private intendedKey(db: string): string {
    return `${this.prefix}:changes:{${db}}:intended`;
  }

  /** The databases that may have intents. */
  private get intendingKey(): string {
    return `${this.prefix}:changes:intending`;
  }

  private seenKey(db: string, key: string): string {
    return `${this.prefix}:changes:{${db}}:seen:${key}`;
  }

  /**
   * Appends `record` to the log of `db` once: a second publication of the same key (within the
   * retention, at least a day) answers the first's event id and adds nothing.
   */
  async publish(db: string, record: T): Promise<string> {
    const seenSeconds = Math.max(86_400, Math.ceil(this.retention.maxAgeMs / 1000));
    const [position, epoch] = (await this.breaker.run((redis) =>
      redis.eval(
        PUBLISH,
        6,
        this.streamKey(db),
        this.epochKey(db),
        this.seenKey(db, record.key),
        this.droppedKey(db),
        this.intentsKey(db),
        this.intendedKey(db),
        JSON.stringify(record),
        String(this.retention.maxEvents),
        String(this.retention.maxAgeMs),
        randomBytes(8).toString('hex'),
        String(seenSeconds),
        record.key,
      ),
    )) as [string, string];
    return eventId(position, epoch);
  }

  /** The epoch of the log of `db`, begun now if it has none yet (so that ids given before the first event resume). */
  async epoch(db: string): Promise<string> {
    return this.breaker.run(async (redis) => {
      const results = await redis.multi().set(this.epochKey(db), randomBytes(8).toString('hex'), 'NX').get(this.epochKey(db)).exec();
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('the change log could not be read');
      return results[1]![1] as string;
    });
  }

  /**
   * Records changes about to be stored (new entities, before their insert) that `publish` then
   * publishes: what a process that died between the two left is found by `intended` and published
   * by the worker, if the write was stored after all. As durable as the log itself: a Redis that
   * lost these lost the log too (a reset for every subscriber).
   */
  async intend(db: string, records: readonly T[]): Promise<void> {
    if (records.length === 0) return;
    const now = Date.now();
    await this.breaker.run(async (redis) => {
      const multi = redis.multi().sadd(this.intendingKey, db);
      multi.hset(this.intentsKey(db), Object.fromEntries(records.map((record) => [record.key, JSON.stringify(record)])));
      multi.zadd(this.intendedKey(db), ...records.flatMap((record) => [now, record.key]));
      const results = await multi.exec();
      const failed = results?.find(([error]) => error);
      if (!results || failed) throw failed?.[0] ?? new Error('the change log could not be written');
    });
  }

  /** Intents of `db` older than `olderThanMs` (their writes are stored or failed by now), oldest first. */
  async intended(db: string, olderThanMs: number, count: number): Promise<T[]> {
    return this.breaker.run(async (redis) => {
      const keys = await redis.zrangebyscore(this.intendedKey(db), '-inf', Date.now() - olderThanMs, 'LIMIT', 0, count);
      if (keys.length === 0) return [];
      const records = await redis.hmget(this.intentsKey(db), ...keys);
      return records.flatMap((record) => (record === null ? [] : [JSON.parse(record) as T]));
    });
  }

  /** Takes back intents whose writes were not stored. */
  async forget(db: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.breaker.run((redis) => redis.multi().hdel(this.intentsKey(db), ...keys).zrem(this.intendedKey(db), ...keys).exec());
  }

  /** The databases that may have intents; one without any is dropped from the list as it is read. */
  async intendingDatabases(): Promise<string[]> {
    const dbs = await this.breaker.run((redis) => redis.smembers(this.intendingKey));
    const left: string[] = [];
    for (const db of dbs) {
      // Atomic, so that an intent added meanwhile keeps its database listed.
      const kept = await this.breaker.run((redis) => redis.eval(FORGET_IDLE, 2, this.intendingKey, this.intendedKey(db), db));
      if (kept === 1) left.push(db);
    }
    return left;
  }

  /** The last position of the log of `db` ('0-0' for an empty or new one), and the event id it stands for. */
  async head(db: string): Promise<{ position: string; id: string }> {
    const epoch = await this.epoch(db);
    const last = (await this.breaker.run((redis) => redis.xrevrange(this.streamKey(db), '+', '-', 'COUNT', 1))) as Fields;
    const position = last[0]?.[0] ?? '0-0';
    return { position, id: eventId(position, epoch) };
  }

  /** The event id of `position` in the log of `db`. */
  async eventIdAt(db: string, position: string): Promise<string> {
    return eventId(position, await this.epoch(db));
  }

  /**
   * Where a subscriber that saw `lastEventId` continues: after its position when nothing it has
   * not seen was dropped since, else a reset (the id is from another epoch or malformed, or the
   * log dropped events after it).
   */
  async resume(db: string, lastEventId: string): Promise<Resume> {
    const parsed = EVENT_ID.exec(lastEventId);
    if (!parsed) return { reset: 'The Last-Event-ID is not an event id of this feed: reload.' };
    const [, position, epoch] = parsed as unknown as [string, string, string];
    if (epoch !== (await this.epoch(db))) return { reset: 'The change log was started anew since that event: reload.' };
    const dropped = await this.maxDropped(db);
    if (comparePositions(position, dropped) < 0) return { reset: 'Events after that one are past the retention of the change log: reload.' };
    return { from: position };
  }

  /** The newest position the log has dropped (trimmed), '0-0' when none. */
  private async maxDropped(db: string): Promise<string> {
    return (await this.breaker.run((redis) => redis.get(this.droppedKey(db)))) ?? '0-0';
  }

  /** Up to `count` events of `db` after `position`, oldest first. */
  async read(db: string, position: string, count: number): Promise<LogEntry<T>[]> {
    const fields = await this.breaker.run((redis) => redis.xrange(this.streamKey(db), `(${position}`, '+', 'COUNT', count));
    return this.entriesOf(db, fields);
  }

  /**
   * Waits up to `blockMs` on `connection` (blocking: nobody else may use it meanwhile) for events
   * after the given positions of several databases; what arrived, by database.
   */
  async tail(connection: Redis, positions: ReadonlyMap<string, string>, blockMs: number, count = 500): Promise<Map<string, LogEntry<T>[]>> {
    const dbs = [...positions.keys()];
    const arrived = new Map<string, LogEntry<T>[]>();
    if (dbs.length === 0) return arrived;
    const streams = (await connection.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', ...dbs.map((db) => this.streamKey(db)), ...dbs.map((db) => positions.get(db)!))) as [string, Fields][] | null;
    for (const [key, fields] of streams ?? []) {
      const db = dbs.find((name) => this.streamKey(name) === key)!;
      arrived.set(db, await this.entriesOf(db, fields));
    }
    return arrived;
  }

  /** Stream entries of the log of `db` (as XRANGE, XREAD and XREADGROUP answer them) as its events. */
  async entriesOf(db: string, fields: Fields): Promise<LogEntry<T>[]> {
    if (fields.length === 0) return [];
    const epoch = await this.epoch(db);
    return fields.map(([position, values]) => ({ id: eventId(position, epoch), position, record: JSON.parse(values[1]!) as T }));
  }
}
