/**
 * When the stack stops waiting for a server that has not answered yet. Not after a fixed
 * time: a slow first answer on a busy machine is not a failure. It waits as long as the server
 * shows signs of getting somewhere, and gives up only after `STALL_MS` without any, or at once
 * when its process is gone.
 */

/** How long a wait goes on with no sign of progress before it is a failure. */
export const STALL_MS = 30_000;

/** What one look at a server being waited for saw. */
export interface Signs {
  /** Its process exists; true for a server we cannot see (one given by URL). */
  alive: boolean;
  /** CPU time its process has used (utime + stime, in clock ticks); undefined when it cannot be read (not ours, not Linux). */
  cpuTicks?: number;
  /** Size of its log; undefined when it has none. */
  logBytes?: number;
  /** It took a connection (or, for a service, answered its probe at all). */
  accepts: boolean;
}

function grew(before: number | undefined, now: number | undefined): boolean {
  return before !== undefined && now !== undefined && now > before;
}

/**
 * Whether the server got somewhere between two looks: its CPU time or its log grew. Accepting a
 * connection counts only where its CPU time cannot be seen: the kernel completes handshakes for a
 * stopped or deadlocked process too, so for a process we can see, work is the better sign.
 */
export function progressed(before: Signs, now: Signs): boolean {
  if (!now.alive) return false;
  if (grew(before.cpuTicks, now.cpuTicks) || grew(before.logBytes, now.logBytes)) return true;
  return now.cpuTicks === undefined && now.accepts;
}

/** A wait's memory: the last look, and when progress was last seen (its start, at first). */
export interface Watch {
  last: Signs;
  progressAt: number;
}

export type Verdict = { kind: 'waiting'; watch: Watch } | { kind: 'dead' } | { kind: 'stalled' };

/** The state of a wait after a look at `at`, given the previous state (undefined for the first look). */
export function judge(watch: Watch | undefined, signs: Signs, at: number, stallMs: number = STALL_MS): Verdict {
  if (!signs.alive) return { kind: 'dead' };
  if (watch === undefined) return { kind: 'waiting', watch: { last: signs, progressAt: at } };
  const progressAt = progressed(watch.last, signs) ? at : watch.progressAt;
  if (at - progressAt >= stallMs) return { kind: 'stalled' };
  return { kind: 'waiting', watch: { last: signs, progressAt } };
}

/**
 * How long one attempt (a ping, a probe) may take: 2 s, then half of the wait so far, up to 30 s.
 * A server that needs longer than any fixed limit for an answer is still heard once the wait has
 * lasted twice that, while a quick one is asked again soon.
 */
export function attemptTimeoutMs(waitedMs: number): number {
  return Math.min(30_000, Math.max(2000, Math.round(waitedMs / 2)));
}
