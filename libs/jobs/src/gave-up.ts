/** What BullMQ tells of a failed attempt: how many were made, how many the job was given. */
export interface FailedAttempt {
  attemptsMade: number;
  opts: { attempts?: number };
}

/**
 * Whether a failed attempt was the job's last: it used every attempt it had (one when none are
 * set), or its processor said no retry could help (BullMQ's `UnrecoverableError`). BullMQ emits
 * `failed` for every attempt; only this one is the job giving up.
 */
export function gaveUp(attempt: FailedAttempt, error: Error): boolean {
  return error.name === 'UnrecoverableError' || attempt.attemptsMade >= (attempt.opts.attempts ?? 1);
}
