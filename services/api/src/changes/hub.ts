import type { ChangeRecord } from '@entia/domain';
import { createRedis, type ChangeLog, type LogEntry } from '@entia/jobs';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Told each event of a watched database after the position `watch` answered, in order. */
export type Listener = (entry: LogEntry<ChangeRecord>) => void;

interface Watched {
  /** The last position handed to the listeners. */
  position: string;
  listeners: Set<Listener>;
}

// How long one blocking read waits before the set of databases is looked at again.
const BLOCK_MS = 5000;
// After a failed read (Redis away): the streams stay open, and reading resumes where it stopped.
const RETRY_MS = 500;

/**
 * One API process's reader of the change logs: a single blocking Redis connection reads
 * the logs of every database some stream of this process watches, and hands each event to that
 * database's listeners. Positions only move forward, so nothing is read twice, and a Redis outage
 * only delays events: reading starts again where it stopped.
 */
export class ChangeHub {
  private readonly watched = new Map<string, Watched>();
  private readonly starting = new Map<string, Promise<Watched>>();
  // Opened when the first database is watched: a process nobody streams from holds no connection.
  private connections: { reader: Redis; commands: Redis } | undefined;
  private reading: Promise<void> | undefined;
  private readerId: number | undefined;
  private closed = false;

  constructor(
    private readonly log: ChangeLog<ChangeRecord>,
    private readonly redisUrl: string,
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  private get redis(): { reader: Redis; commands: Redis } {
    const onError = (error: Error) => this.logger.debug({ err: error }, 'change hub: redis connection error');
    this.connections ??= {
      reader: createRedis(this.redisUrl, 'worker', onError, this.timeoutMs),
      commands: createRedis(this.redisUrl, 'command', onError, this.timeoutMs),
    };
    return this.connections;
  }

  /**
   * Hands `listener` every event of `db` after the position answered (the log's head when nobody
   * here watched `db` yet). The returned function stops it.
   */
  async watch(db: string, listener: Listener): Promise<{ position: string; stop(): void }> {
    const watched = this.watched.get(db) ?? (await this.start(db));
    watched.listeners.add(listener);
    const stop = () => {
      watched.listeners.delete(listener);
      if (watched.listeners.size === 0 && this.watched.get(db) === watched) this.watched.delete(db);
    };
    return { position: watched.position, stop };
  }

  private start(db: string): Promise<Watched> {
    const started =
      this.starting.get(db) ??
      this.log
        .head(db)
        .then(({ position }) => {
          const watched = this.watched.get(db) ?? { position, listeners: new Set<Listener>() };
          this.watched.set(db, watched);
          this.wake();
          return watched;
        })
        .finally(() => this.starting.delete(db));
    this.starting.set(db, started);
    return started;
  }

  /** Makes the blocking read start again now, so that it includes a database just added. */
  private wake(): void {
    if (!this.reading) {
      this.reading = this.read().finally(() => (this.reading = undefined));
      return;
    }
    if (this.readerId !== undefined) void this.redis.commands.client('UNBLOCK', this.readerId).catch(() => undefined);
  }

  private async read(): Promise<void> {
    while (!this.closed && this.watched.size > 0) {
      try {
        const { reader } = this.redis;
        this.readerId ??= Number(await reader.client('ID'));
        const positions = new Map([...this.watched].map(([db, watched]) => [db, watched.position]));
        const arrived = await this.log.tail(reader, positions, BLOCK_MS);
        for (const [db, entries] of arrived) this.hand(db, entries);
      } catch (err) {
        if (this.closed) return;
        this.readerId = undefined;
        this.logger.warn({ err }, 'change hub: reading the change logs failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  private hand(db: string, entries: LogEntry<ChangeRecord>[]): void {
    const watched = this.watched.get(db);
    if (!watched) return;
    for (const entry of entries) {
      watched.position = entry.position;
      for (const listener of watched.listeners) listener(entry);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connections?.reader.disconnect();
    this.connections?.commands.disconnect();
    // A read pending while Redis is away is never answered once its connection is closed (ioredis
    // does not fail it): waiting for the loop is bounded.
    await Promise.race([this.reading, new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref())]);
  }
}
