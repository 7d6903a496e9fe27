export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 200, maxDelayMs: 5000 };

/**
 * "Full jitter" exponential backoff: a random wait up to base·2^(n-1), capped. Many clients retrying
 * after the same outage spread out instead of returning in lockstep.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}

/** The interface's rule: server failures are retried, client errors never. 429 is the server asking to wait. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429;
}
