import { changeEventOf, deliveryOf, missingProps, type Caller, type ChangeEvent, type ChangeRecord, type FeedQuery } from '@entia/domain';
import { comparePositions, type LogEntry } from '@entia/jobs';
import type { Response } from 'express';

/** What a stream is told apart from changes: why it ends, or where it starts. */
export type Notice = 'ready' | 'reset' | 'dropped' | 'closing' | 'revoked';

/** Why a stream ended: the client went, it could not keep up, or the server closed it (shutdown, a revoked key). */
export type EndReason = 'client' | 'dropped' | 'closed';

export interface StreamOptions {
  db: string;
  caller: Caller;
  query: FeedQuery;
  /** Bytes the response may hold unsent before the stream is dropped. */
  bufferBytes: number;
  /** Values of `props` that an event does not carry, read as the caller may see them. */
  readValues(entity: string, props: readonly string[]): Promise<Record<string, unknown> | undefined>;
}

/** One Server-Sent Event. */
const frame = (name: string, data: unknown, id?: string) => `${id !== undefined ? `id: ${id}\n` : ''}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

// Events waiting to be written while earlier ones are handled (values being read): a bound on
// memory for a stream that cannot keep up, in addition to the bytes the socket holds.
const MAX_QUEUED = 1000;

/**
 * One open change stream: Server-Sent Events to one client. Events are handled in log order, each
 * decided for this caller and filter (`deliveryOf`); a client that does not read is dropped once
 * `bufferBytes` are waiting for it, rather than buffered without bound. A stream starts `paused`:
 * events arriving while it catches up with the log are queued and handled after the backlog.
 */
export class ChangeStream {
  /** The last position handled; events at or before it are not sent again. */
  private cursor = '0-0';
  private queue: LogEntry<ChangeRecord>[] = [];
  private busy = false;
  private live = false;
  private ended = false;

  constructor(
    private readonly res: Response,
    private readonly options: StreamOptions,
    private readonly onEnd: (reason: EndReason) => void,
  ) {
    res.once('close', () => this.finish('client'));
  }

  get open(): boolean {
    return !this.ended;
  }

  /** Bytes written but not yet taken by the client. */
  get unsent(): number {
    return this.res.writableLength;
  }

  /** Starts after `position`: events up to it are taken as seen. */
  startAfter(position: string): void {
    this.cursor = position;
  }

  /** An event of the log, live: handled now, or queued while the backlog is being sent. */
  offer = (entry: LogEntry<ChangeRecord>): void => {
    if (this.ended) return;
    if (this.queue.length >= MAX_QUEUED) return this.drop();
    this.queue.push(entry);
    if (this.live) void this.pump();
  };

  /** Sends the backlog (`entries`, oldest first) before any live event. */
  async catchUp(entries: LogEntry<ChangeRecord>[]): Promise<void> {
    for (const entry of entries) {
      if (this.ended) return;
      await this.handle(entry);
    }
  }

  /** Done catching up: live events flow. */
  goLive(): void {
    this.live = true;
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0 && !this.ended) await this.handle(this.queue.shift()!);
    } finally {
      this.busy = false;
    }
  }

  private async handle(entry: LogEntry<ChangeRecord>): Promise<void> {
    if (comparePositions(entry.position, this.cursor) <= 0) return;
    this.cursor = entry.position;
    const { db, caller, query } = this.options;
    const delivery = deliveryOf(entry.record, [caller], query.filters);
    if (!delivery) return;
    const event = changeEventOf(entry.id, db, entry.record, delivery, query.props);
    await this.addMissingValues(event, entry.record);
    this.send(entry.record.kind, event, entry.id);
  }

  /** Values too large for the log are read from the database (as this caller may see them, now). */
  private async addMissingValues(event: ChangeEvent, record: ChangeRecord): Promise<void> {
    const missing = event.values && this.options.query.props ? missingProps(record, this.options.query.props) : [];
    if (missing.length === 0) return;
    const current = await this.options.readValues(record.entity, missing).catch(() => undefined);
    for (const name of missing) {
      if (current?.[name] !== undefined) (event.values as Record<string, unknown>)[name] = current[name];
    }
  }

  private send(name: string, data: unknown, id?: string): void {
    if (this.ended) return;
    this.res.write(frame(name, data, id));
    if (this.res.writableLength > this.options.bufferBytes) this.drop();
  }

  /** Tells the client something other than a change; `end` closes the stream after it. */
  notice(name: Notice, data: object, id?: string, end = false): void {
    this.send(name, data, id);
    if (end) this.close();
  }

  /** A comment: keeps proxies from closing an idle stream, and finds dead clients. */
  heartbeat(): void {
    if (!this.ended) this.res.write(': heartbeat\n\n');
  }

  /**
   * The client does not keep up: it is told (the notice waits behind what it has not read) and the
   * connection is closed; what it holds is let go at once rather than when the client reads it.
   */
  private drop(): void {
    if (this.ended) return;
    // Written past the bound (`send` would drop again): the one frame beyond it.
    this.res.write(frame('dropped', { reason: 'The client did not keep up with the changes; resume with Last-Event-ID.' }));
    this.finish('dropped');
    this.res.end();
    // The socket may never drain: its buffers go with it.
    setTimeout(() => this.res.destroy(), 1000).unref();
  }

  close(): void {
    if (this.ended) return;
    this.finish('closed');
    this.res.end();
  }

  private finish(reason: EndReason): void {
    if (this.ended) return;
    this.ended = true;
    this.queue = [];
    this.onEnd(reason);
  }
}
