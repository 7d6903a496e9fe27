import { failureReason, retryUntilDone, type RetrySchedule } from '@entia/health';
import type { MongoClient } from 'mongodb';

/**
 * Where the process stands with MongoDB: its first connect is still being tried, done, closed by
 * us, or `lost`: the client was closed by something else and will never connect again by itself.
 */
export type ConnectionState =
  | { kind: 'connecting'; attempts: number; since: number; lastError?: unknown }
  | { kind: 'connected'; since: number }
  | { kind: 'closed' }
  | { kind: 'lost'; reason: string };

export interface ConnectionEvents {
  /** The first connect failed: once per start, with the attempt's error. */
  unreachable?(error: unknown): void;
  /** Connected, after `attempts` tries over `ms`. */
  connected?(attempts: number, ms: number): void;
}

/**
 * Keeps trying a MongoClient's first connect until it succeeds.
 *
 * The driver connects a client on its first operation, but a first connect that fails (the server
 * not there yet, or slower to answer than `serverSelectionTimeoutMS`) closes the client's topology
 * and leaves it in place: `autoConnect` only connects a client that has none, so every later
 * operation fails with `MongoTopologyClosedError` however long the server has been back (mongodb
 * 7.x, `MongoClient._connect` and `autoConnect`). An explicit `connect()` opens a new topology
 * whenever the current one is not connected, so this calls it again, with backoff, until one
 * succeeds. From then on the driver's own monitoring finds the server again after any loss.
 *
 * Operations meanwhile fail at once (the closed topology) or within server selection (an attempt
 * under way), and their callers answer 503 as for any unreachable MongoDB. `Db` and `Collection`
 * handles read the client's current topology on every operation, so handles made before the
 * connect serve after it.
 */
export class MongoConnection {
  private current: ConnectionState;
  private readonly stop = new AbortController();
  private readonly connected: Promise<void>;

  constructor(
    private readonly client: MongoClient,
    events: ConnectionEvents = {},
    schedule?: RetrySchedule,
  ) {
    const since = Date.now();
    this.current = { kind: 'connecting', attempts: 0, since };
    this.connected = retryUntilDone(() => this.client.connect(), {
      ...(schedule ? { schedule } : {}),
      signal: this.stop.signal,
      onFailure: (error, attempts) => {
        if (attempts === 1) events.unreachable?.(error);
        this.current = { kind: 'connecting', attempts, since, lastError: error };
      },
    }).then(
      () => {
        const attempts = this.current.kind === 'connecting' ? this.current.attempts + 1 : 1;
        this.current = { kind: 'connected', since: Date.now() };
        events.connected?.(attempts, this.current.since - since);
      },
      // Closed before it connected: it never will (a caller that must not wait for ever passes a signal).
      () => new Promise<void>(() => undefined),
    );
    // Once connected, the driver closes the topology only when the client is closed: if that was
    // not us, nothing reconnects it (a bug, but one only a restart mends: liveness says so).
    client.on('topologyClosed', () => {
      if (this.current.kind === 'connected') this.current = { kind: 'lost', reason: 'the MongoDB client was closed while in use' };
    });
  }

  /** Why the connection can never serve again by itself; undefined while it can (connected, or still trying). */
  get stuck(): string | undefined {
    return this.current.kind === 'lost' ? this.current.reason : undefined;
  }

  get state(): ConnectionState {
    return this.current;
  }

  /**
   * Resolves once the first connect has succeeded (never, if closed before); rejects with the
   * latest failure if `signal` aborts first.
   */
  whenConnected(signal?: AbortSignal): Promise<void> {
    if (!signal) return this.connected;
    return new Promise((resolve, reject) => {
      const abort = () => reject((this.current.kind === 'connecting' && this.current.lastError) || signal.reason);
      if (signal.aborted) return abort();
      signal.addEventListener('abort', abort, { once: true });
      this.connected.then(() => {
        signal.removeEventListener('abort', abort);
        resolve();
      }, reject);
    });
  }

  async close(): Promise<void> {
    this.current = { kind: 'closed' };
    this.stop.abort(new Error('the store is closed'));
    await this.client.close();
  }
}

interface ConnectionLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

/** The log of a service's connection: one line when MongoDB does not answer at start, one when it does after all. */
export function loggedConnection(log: ConnectionLog): ConnectionEvents {
  return {
    unreachable: (error) =>
      log.warn({ reason: failureReason(error) }, 'mongodb unreachable: connecting again until it answers; until then /readyz says so and requests needing it answer 503'),
    connected: (attempts, ms) => {
      if (attempts > 1) log.info({ attempts, ms }, 'mongodb connected');
    },
  };
}
