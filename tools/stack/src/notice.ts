import type { Log } from './log';

/** How long a wait goes unmentioned: a normal start of a server or of the API takes a second or two. */
export const NOTICE_AFTER_MS = 3000;

/** What makes two reasons the same: their words, whatever the figures (ports, times, counts). */
export function reasonKey(reason: string): string {
  return reason.replace(/\d+/g, '#');
}

/**
 * Whether a wait should say why it still waits: once it has lasted NOTICE_AFTER_MS, with a reason
 * it has not said yet in this wait. So one line when a wait gets long, one more only when the
 * reason changes — never one per poll, nor again when a reason comes back.
 */
export function noticeDue(said: ReadonlySet<string>, reason: string, waitedMs: number): boolean {
  return waitedMs >= NOTICE_AFTER_MS && !said.has(reasonKey(reason));
}

/** The lines of one wait: `waiting for <what>: <reason>`. */
export class WaitNotice {
  private readonly said = new Set<string>();

  constructor(
    private readonly what: string,
    private readonly log: Log,
  ) {}

  update(reason: string, waitedMs: number): void {
    if (!noticeDue(this.said, reason, waitedMs)) return;
    this.said.add(reasonKey(reason));
    this.log(`waiting for ${this.what}: ${reason}`);
  }
}
