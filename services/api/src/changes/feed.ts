import type { Config } from '@entia/config';
import type { ChangeRecord, FeedQuery } from '@entia/domain';
import { getEntity, liveKey, type Tenant } from '@entia/entities';
import { comparePositions, type ChangeLog } from '@entia/jobs';
import type { Store } from '@entia/store';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { EntitiesDeps } from '@entia/entities';
import type { Lifecycle } from '../http/lifecycle';
import { HttpProblem, problems } from '../http/problem';
import type { ChangeHub } from './hub';
import type { StreamSlots } from './slots';
import { ChangeStream } from './stream';

// Events read from the log per round while a resuming stream catches up.
const BACKLOG_PAGE = 500;
// How long a client waits before reconnecting (the SSE `retry` field).
const RETRY_MS = 2000;

export interface FeedDeps {
  deps: EntitiesDeps & { store: Store; logger: Logger };
  config: Pick<Config, 'CHANGE_STREAMS_MAX' | 'CHANGE_STREAM_HEARTBEAT_MS' | 'CHANGE_STREAM_BUFFER_BYTES' | 'KEY_RECHECK_MS'>;
  log: ChangeLog<ChangeRecord>;
  hub: ChangeHub;
  slots: StreamSlots;
  lifecycle: Lifecycle;
  registry: Registry;
}

/** A stream about to open: who, where, what, and from which event on. */
export interface StreamRequest {
  tenant: Tenant;
  query: FeedQuery;
  /** Who the per-person limit counts the stream against: the person, or the IP of an anonymous caller. */
  holder: string;
  lastEventId?: string;
}

/**
 * This process's change streams: opens them within the limits (per process, per person
 * in Redis), catches each up from its `Last-Event-ID`, keeps it alive with heartbeats, closes it
 * when its key is revoked, and ends them all when the process shuts down.
 */
export class ChangeFeed {
  private readonly streams = new Set<ChangeStream>();
  private readonly open: Gauge;
  private readonly ended: Counter<'reason'>;

  constructor(private readonly feed: FeedDeps) {
    this.open = new Gauge({ name: 'entia_change_streams_open', help: 'Change streams open in this process.', registers: [feed.registry] });
    this.ended = new Counter({ name: 'entia_change_streams_ended_total', help: 'Change streams ended, by why.', labelNames: ['reason'], registers: [feed.registry] });
    const streams = this.streams;
    new Gauge({
      name: 'entia_change_streams_unsent_bytes',
      help: 'Bytes this process holds for change-stream clients that have not read them yet.',
      registers: [feed.registry],
      collect() {
        let bytes = 0;
        for (const stream of streams) bytes += stream.unsent;
        this.set(bytes);
      },
    });
    feed.lifecycle.whenShuttingDown(() => {
      for (const stream of [...this.streams]) stream.notice('closing', { reason: 'This server is shutting down; reconnect with Last-Event-ID.' }, undefined, true);
    });
  }

  /** Refuses a stream over a limit (429, 503); else answers `res` with the stream until it ends. */
  async serve(request: StreamRequest, res: Response): Promise<void> {
    const { config, slots } = this.feed;
    if (this.streams.size >= config.CHANGE_STREAMS_MAX) {
      throw problems.unavailable('This server has as many change streams open as it may; try another or later.');
    }
    const slot = randomUUID();
    if (!(await slots.take(request.holder, slot))) {
      throw new HttpProblem(429, 'too-many-streams', 'Too Many Requests', 'You have as many change streams open as you may; close one first.', undefined, { 'Retry-After': '10' });
    }
    try {
      await this.stream(request, res, slot);
    } catch (error) {
      await slots.release(request.holder, slot).catch(() => undefined);
      throw error;
    }
  }

  private async stream({ tenant, query, holder, lastEventId }: StreamRequest, res: Response, slot: string): Promise<void> {
    const { config, log, hub, slots } = this.feed;
    const db = tenant.name;
    const resume = lastEventId === undefined ? undefined : await log.resume(db, lastEventId);
    const timers: NodeJS.Timeout[] = [];
    let stopWatching = () => {};
    const stream: ChangeStream = new ChangeStream(
      res,
      {
        db,
        caller: tenant.caller,
        query,
        bufferBytes: config.CHANGE_STREAM_BUFFER_BYTES,
        readValues: async (entity, props) => (await getEntity(tenant, entity, props)).entity,
      },
      (reason) => {
        this.ended.inc({ reason });
        for (const timer of timers) clearInterval(timer);
        stopWatching();
        this.streams.delete(stream);
        this.open.set(this.streams.size);
        void slots.release(holder, slot).catch(() => undefined);
      },
    );
    const watching = await hub.watch(db, stream.offer);
    stopWatching = watching.stop;
    this.streams.add(stream);
    this.open.set(this.streams.size);

    res.status(200).set({ 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    res.write(`retry: ${RETRY_MS}\n\n`);
    timers.push(
      setInterval(() => {
        stream.heartbeat();
        void slots.renew(holder, slot).catch(() => undefined);
      }, config.CHANGE_STREAM_HEARTBEAT_MS),
    );
    if (tenant.kid) timers.push(setInterval(() => void this.recheck(stream, tenant.kid!), config.KEY_RECHECK_MS));

    try {
      if (resume && 'from' in resume) {
        stream.startAfter(resume.from);
        await this.catchUp(stream, db, resume.from, watching.position);
        stream.notice('ready', {});
      } else {
        // Where live events start: resuming from here misses nothing of what follows.
        const start = await log.eventIdAt(db, watching.position);
        stream.startAfter(watching.position);
        if (resume) stream.notice('reset', { reason: resume.reset }, start);
        stream.notice('ready', {}, start);
      }
      stream.goLive();
    } catch (err) {
      // The answer has begun: no problem can be sent any more. The client reconnects with the
      // last id it received, and nothing is lost.
      this.feed.deps.logger.warn({ err, db }, 'a change stream could not catch up; closed for the client to resume');
      stream.close();
    }
  }

  /** Sends what the log holds after `from`, up to where live events take over (`until`). */
  private async catchUp(stream: ChangeStream, db: string, from: string, until: string): Promise<void> {
    let position = from;
    for (;;) {
      const read = await this.feed.log.read(db, position, BACKLOG_PAGE);
      const page = read.filter((entry) => comparePositions(entry.position, until) <= 0);
      await stream.catchUp(page);
      if (page.length < BACKLOG_PAGE || !stream.open) return;
      position = page[page.length - 1]!.position;
    }
  }

  private async recheck(stream: ChangeStream, kid: string): Promise<void> {
    const live = await liveKey(this.feed.deps.store, kid).then(
      (found) => found !== undefined,
      () => true, // The database is away: the key is not known to be revoked.
    );
    if (live || !stream.open) return;
    stream.notice('revoked', { reason: 'The API key this stream was opened with was revoked.' }, undefined, true);
  }
}
