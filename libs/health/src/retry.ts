/** Delays between failed attempts: doubling from `firstMs` up to `maxMs`. */
export interface RetrySchedule {
  firstMs: number;
  maxMs: number;
}

/**
 * First contact with a dependency: soon after it starts answering, without hammering it while it
 * does not. An attempt itself takes up to DEPENDENCY_TIMEOUT_MS when nothing answers, so a
 * dependency that comes back is found within about that plus two seconds.
 */
export const FIRST_CONTACT: RetrySchedule = { firstMs: 250, maxMs: 2000 };

/** How long to wait after failed attempt number `attempt` (1-based) before the next one. */
export function retryDelay(attempt: number, schedule: RetrySchedule = FIRST_CONTACT): number {
  return Math.min(schedule.maxMs, schedule.firstMs * 2 ** Math.max(0, attempt - 1));
}

export interface RetryOptions {
  schedule?: RetrySchedule;
  /** Told of every failed attempt (1-based), before the wait for the next. */
  onFailure?(error: unknown, attempt: number): void;
  /** Stops retrying: the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Runs `attempt` until it succeeds, waiting `retryDelay` after each failure: for what a process
 * must do once before it can serve (connect, create its bucket) and must not give up on while the
 * dependency is away. A wait keeps the process alive (a command waiting for MongoDB must not exit
 * half-way): stop it with `signal`.
 */
export async function retryUntilDone<T>(attempt: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const { schedule = FIRST_CONTACT, onFailure, signal } = options;
  for (let n = 1; ; n++) {
    signal?.throwIfAborted();
    try {
      return await attempt();
    } catch (error) {
      signal?.throwIfAborted();
      onFailure?.(error, n);
      await pause(retryDelay(n, schedule), signal);
    }
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}
