import type { Redis } from 'ioredis';

/** Redis is known to be away (or did not answer in time): the command was not sent, or gave up. */
export class RedisUnavailableError extends Error {
  override readonly name = 'RedisUnavailableError';
}

// What ioredis fails a command with when Redis is hung (`commandTimeout`), when the connection is
// closed (BullMQ's `ConnectionClosedError` on one says the same) or, without an offline queue,
// not connected: word for word.
const CLIENT_MESSAGES = new Set(['Command timed out', 'Connection is closed.', "Stream isn't writeable and enableOfflineQueue options is false"]);
// ioredis after `maxRetriesPerRequest` failed reconnects; ours.
const CLIENT_NAMES = new Set(['MaxRetriesPerRequestError', 'RedisUnavailableError']);

/**
 * Whether an error is one ioredis, BullMQ or the breaker makes when Redis could not be reached or
 * did not answer in time, as opposed to a command Redis refused (a wrong type, a script error),
 * which is a bug and stays one. Never a bare socket error (ECONNRESET, ECONNABORTED, …): any
 * connection fails with those — a client hanging up mid-body, MongoDB's, storage's — while ioredis
 * only emits its socket's as `error` events and fails the commands with one of its own errors.
 */
export function isRedisUnavailable(error: unknown): boolean {
  // By name and message: ioredis's are plain Errors, or of a class it does not export.
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  return (typeof name === 'string' && CLIENT_NAMES.has(name)) || (typeof message === 'string' && CLIENT_MESSAGES.has(message));
}

export interface BreakerOptions {
  /** Pause between two PINGs while Redis is considered away. */
  probeIntervalMs?: number;
  /** Told when Redis goes away or comes back (for the log: once per change, not per request). */
  onChange?: (available: boolean, reason: string) => void;
}

/**
 * A per-process circuit breaker in front of the request-path Redis client. Several Redis calls
 * in series on one request (rate limit, cache token, cache entry, schema token, invalidation,
 * enqueueing) must not each wait for a Redis that stopped answering: after one call finds Redis
 * gone (connection lost) or hung (`commandTimeout`), every call made through `run` fails at once
 * with `RedisUnavailableError` until Redis is back, which the breaker finds out by itself: the
 * client's `ready` after a reconnect, or a background PING answered (a hung server keeps its
 * connection). So a request waits for Redis at most once per outage, never per call.
 */
export class RedisBreaker {
  private down = false;
  private ended = false;
  private probe: NodeJS.Timeout | undefined;
  private readonly probeIntervalMs: number;

  constructor(
    readonly redis: Redis,
    private readonly options: BreakerOptions = {},
  ) {
    this.probeIntervalMs = options.probeIntervalMs ?? 500;
    // By the next microtask ioredis has decided: `end` after disconnect() (shutting down, not an
    // outage), else it is reconnecting.
    redis.on('close', () => queueMicrotask(() => redis.status !== 'end' && this.trip('connection lost')));
    redis.on('ready', () => this.recover());
    redis.on('end', () => {
      this.ended = true;
      clearTimeout(this.probe);
    });
  }

  /**
   * No more probing: the client is being closed. Needed besides `end`: a client disconnected while
   * it was reconnecting to a Redis that is away never emits `end`, and each probe's PING would keep
   * the process alive for another command timeout, forever.
   */
  stop(): void {
    this.ended = true;
    clearTimeout(this.probe);
  }

  /** False while Redis is known to be away: callers skip what Redis only speeds up. */
  get available(): boolean {
    return !this.down;
  }

  /** Runs a Redis call unless Redis is known to be away; a call that finds it away opens the breaker. */
  async run<T>(call: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.down) throw new RedisUnavailableError('Redis is unavailable');
    try {
      return await call(this.redis);
    } catch (error) {
      if (!isRedisUnavailable(error)) throw error;
      this.trip(error instanceof Error ? error.message : String(error));
      throw new RedisUnavailableError('Redis did not answer', { cause: error });
    }
  }

  private trip(reason: string): void {
    if (this.down || this.ended) return;
    this.down = true;
    this.options.onChange?.(false, reason);
    this.scheduleProbe();
  }

  private recover(): void {
    clearTimeout(this.probe);
    this.probe = undefined;
    if (!this.down) return;
    this.down = false;
    this.options.onChange?.(true, 'answering again');
  }

  // One PING at a time; each is bounded by the client's commandTimeout.
  private scheduleProbe(): void {
    if (this.ended) return;
    this.probe = setTimeout(() => {
      this.redis.ping().then(
        () => this.recover(),
        () => {
          if (this.down) this.scheduleProbe();
        },
      );
    }, this.probeIntervalMs);
    this.probe.unref();
  }
}
