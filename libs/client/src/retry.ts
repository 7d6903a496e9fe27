export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 200, maxDelayMs: 5000 };

/** The problem type of a 409 saying the first request with this `Idempotency-Key` is still running. */
export const KEY_IN_USE = 'urn:entia:problem:idempotency-key-in-use';

/**
 * "Full jitter" exponential backoff: a random wait up to base·2^(n-1), capped. Many clients retrying
 * after the same outage spread out instead of returning in lockstep.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * The interface's rule: server failures are retried, client errors never. 429 is the server asking
 * to wait, and so is a 409 whose problem type is `KEY_IN_USE`: the first attempt of this very call
 * (whose answer was lost) is still running, and the retry will receive its answer.
 */
export function isRetryableStatus(status: number, problemType?: string): boolean {
  return status >= 500 || status === 429 || (status === 409 && problemType === KEY_IN_USE);
}

/**
 * Whether an attempt may be sent again at all. A POST that failed without an answer (or with a 5xx)
 * may have been stored anyway; repeating it is safe only under an `Idempotency-Key`, which makes the
 * server answer a repeat with the first answer. Other methods are idempotent by the interface.
 */
export function mayRepeat(method: string, idempotencyKey: string | undefined): boolean {
  return method.toUpperCase() !== 'POST' || idempotencyKey !== undefined;
}
