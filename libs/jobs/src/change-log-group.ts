import type { Redis } from 'ioredis';
import type { RedisBreaker } from './breaker';
import type { ChangeLog, LogEntry, Publishable } from './change-log';

type Fields = [string, string[] | null][];

/** The group is gone (Redis lost its data, or the stream was deleted): join again. */
export class GroupMissing extends Error {
  override readonly name = 'GroupMissing';
}

const isNoGroup = (error: unknown) => error instanceof Error && /NOGROUP/.test(error.message);

/**
 * A Redis consumer group over the change logs of several databases: each event is
 * handed to one consumer of the group (one worker process) and stays in that consumer's pending
 * list until acknowledged; what a consumer that died leaves there is claimed by another (`claim`).
 * So every event is handled at least once, whichever worker dies when. `read` blocks, so it takes
 * a connection of its own; every other call goes through the breaker.
 */
export class ChangeLogGroup<T extends Publishable> {
  constructor(
    private readonly log: ChangeLog<T>,
    private readonly breaker: RedisBreaker,
    readonly group: string,
    readonly consumer: string,
  ) {}

  /**
   * Creates the group on the log of `db` (and the log, if it has no event yet), starting at its
   * first event; a group that exists is kept where it is.
   */
  async join(db: string): Promise<void> {
    await this.breaker.run(async (redis) => {
      try {
        await redis.xgroup('CREATE', this.log.streamKey(db), this.group, '0', 'MKSTREAM');
      } catch (error) {
        if (!(error instanceof Error && /BUSYGROUP/.test(error.message))) throw error;
      }
    });
  }

  /**
   * Waits up to `blockMs` on `connection` for events of the given databases that no consumer of
   * the group was handed yet, and hands them to this one; what arrived, by database.
   */
  async read(connection: Redis, dbs: readonly string[], blockMs: number, count: number): Promise<Map<string, LogEntry<T>[]>> {
    const arrived = new Map<string, LogEntry<T>[]>();
    if (dbs.length === 0) return arrived;
    const keys = dbs.map((db) => this.log.streamKey(db));
    let streams: [string, Fields][] | null;
    try {
      streams = (await connection.xreadgroup('GROUP', this.group, this.consumer, 'COUNT', count, 'BLOCK', blockMs, 'STREAMS', ...keys, ...dbs.map(() => '>'))) as [string, Fields][] | null;
    } catch (error) {
      if (isNoGroup(error)) throw new GroupMissing(error instanceof Error ? error.message : String(error));
      throw error;
    }
    for (const [key, fields] of streams ?? []) {
      const db = dbs[keys.indexOf(key)]!;
      arrived.set(db, await this.entries(db, fields));
    }
    return arrived;
  }

  /** Acknowledges handled events: no consumer is handed them again. */
  async ack(db: string, positions: readonly string[]): Promise<void> {
    if (positions.length === 0) return;
    await this.breaker.run((redis) => redis.xack(this.log.streamKey(db), this.group, ...positions));
  }

  /**
   * Takes over up to `count` events of `db` that a consumer was handed more than `minIdleMs` ago
   * and has not acknowledged (it died, or is stuck). Events the log dropped meanwhile are
   * acknowledged here: there is nothing left to handle.
   */
  async claim(db: string, minIdleMs: number, count: number): Promise<LogEntry<T>[]> {
    const key = this.log.streamKey(db);
    const answer = (await this.breaker.run((redis) =>
      redis.xautoclaim(key, this.group, this.consumer, minIdleMs, '0-0', 'COUNT', count).catch((error: unknown) => {
        if (isNoGroup(error)) throw new GroupMissing(error instanceof Error ? error.message : String(error));
        throw error;
      }),
    )) as [string, Fields, string[]?];
    const [, fields, deleted = []] = answer;
    if (deleted.length > 0) await this.ack(db, deleted);
    return this.entries(db, fields);
  }

  /** Entries a consumer was handed that the log has dropped since come without fields: skipped. */
  private entries(db: string, fields: Fields): Promise<LogEntry<T>[]> {
    return this.log.entriesOf(db, fields.filter((entry): entry is [string, string[]] => entry[1] !== null));
  }
}
