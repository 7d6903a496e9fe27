import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { EntiaClient } from './client';
import { EntiaError, type Problem } from './errors';
import { queryString } from './query';
import { backoffDelay, DEFAULT_RETRY } from './retry';
import { wait } from './signals';
import type { ChangeEvent, EntityQuery } from './types';

/** What the feed tells apart from changes (see the README): none of them needs an answer but `reset`. */
export type ChangeNotice = 'ready' | 'reset' | 'dropped' | 'closing' | 'revoked';

export interface SubscribeOptions {
  /** Property names whose values each event carries in `values`. */
  props?: string[];
  /** Resume after this event id (a previous subscription's `lastEventId`). */
  lastEventId?: string;
  /**
   * Notices of the feed. On `reset` events were lost (retention, a server restart): reload what you
   * show, then go on; the subscription continues by itself.
   */
  onNotice?(notice: ChangeNotice, data: { reason?: string }): void;
  /** A connection failed and is tried again (`retrying`), or the subscription ended for good. */
  onError?(error: unknown, retrying: boolean): void;
  signal?: AbortSignal;
}

export interface Subscription {
  /** The last event id seen: pass it as `lastEventId` to resume in a later subscription. */
  readonly lastEventId: string | undefined;
  /** Resolves when the subscription has ended (closed, aborted, or refused for good). */
  readonly done: Promise<void>;
  close(): void;
}

const CHANGE_EVENTS = new Set(['created', 'updated', 'deleted']);
// How long an idle stream may stay silent: the server sends a heartbeat every 15 s by default.
const SILENCE_MS = 60_000;
// Before reconnecting after a stream ended normally.
const RECONNECT_MS = 200;

/**
 * `GET /api/{db}/changes` as a subscription: each change reaches `onEvent` once, in order.
 * A dropped connection, a server shutting down, a 5xx or a 429 is retried with backoff and resumed
 * with `Last-Event-ID`, so nothing is missed or repeated across reconnects (a `reset` notice says
 * when the server could not keep that promise); an expired token is renewed. A 4xx other than 401
 * and 429, or a revoked key, ends it (`onError` with `retrying` false).
 */
export function subscribe(client: EntiaClient, db: string, filter: EntityQuery, onEvent: (event: ChangeEvent) => void, options: SubscribeOptions = {}): Subscription {
  const abort = new AbortController();
  options.signal?.addEventListener('abort', () => abort.abort(), { once: true });
  let lastEventId = options.lastEventId;
  let ended = false;
  const path = `/api/${encodeURIComponent(db)}/changes${queryString({ ...filter, ...(options.props ? { props: options.props.join(',') } : {}) })}`;

  /** One connection; resolves when it ended and should be tried again, throws when the subscription is over. */
  const connect = async (token: string | undefined): Promise<void> => {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
    const response = await fetch(`${client.baseUrl}${path}`, { headers, signal: abort.signal });
    if (!response.ok) {
      const problem = (await response.json().catch(() => undefined)) as Problem | undefined;
      throw new EntiaError(response.status, problem, response.headers.get('x-request-id') ?? undefined);
    }
    let silence: ReturnType<typeof setTimeout> | undefined;
    const reader = response.body!.getReader();
    const quiet = () => {
      clearTimeout(silence);
      silence = setTimeout(() => void reader.cancel(), SILENCE_MS);
    };
    const parser = createParser({
      onEvent: (message: EventSourceMessage) => {
        if (message.id !== undefined && message.id !== '') lastEventId = message.id;
        const data = JSON.parse(message.data) as ChangeEvent & { reason?: string };
        if (CHANGE_EVENTS.has(message.event ?? '')) onEvent(data);
        else options.onNotice?.(message.event as ChangeNotice, data);
        if (message.event === 'revoked') ended = true;
      },
      onComment: quiet,
    });
    const decoder = new TextDecoder();
    quiet();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        quiet();
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } finally {
      clearTimeout(silence);
    }
  };

  const run = async () => {
    let token = await client.bearer();
    for (let attempt = 1; !ended && !abort.signal.aborted; attempt++) {
      try {
        await connect(token);
        if (ended) options.onError?.(new Error('The API key was revoked.'), false);
        // A stream that was served and ended (dropped, the server going away): back soon, backoff afresh.
        attempt = 0;
        await pause(RECONNECT_MS, abort.signal);
      } catch (error) {
        if (abort.signal.aborted) return;
        const status = error instanceof EntiaError ? error.status : undefined;
        if (status === 401 && token !== undefined) {
          const renewed = await client.renewBearer(token).catch(() => undefined);
          if (renewed !== undefined && renewed !== token) {
            token = renewed;
            continue;
          }
        }
        const retrying = status === undefined || status >= 500 || status === 429;
        options.onError?.(error, retrying);
        if (!retrying) return;
        await pause(backoffDelay(Math.max(1, attempt), DEFAULT_RETRY), abort.signal);
      }
    }
  };

  const done = run().finally(() => (ended = true));
  return {
    get lastEventId() {
      return lastEventId;
    },
    done,
    close: () => abort.abort(),
  };
}

/** A wait between connections; closing the subscription ends it (the loop then sees the abort). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return wait(ms, signal).catch(() => undefined);
}
