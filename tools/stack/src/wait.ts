import { setTimeout as sleep } from 'node:timers/promises';
import type { Log } from './log';
import { WaitNotice } from './notice';
import { attemptTimeoutMs, judge, type Signs, type Watch } from './progress';

/** One try at what is waited for: done, or why not yet and whether the server took the connection. */
export type Attempt = { done: true } | { done: false; accepts: boolean; reason: string };

export interface WaitFor {
  /** What is waited for, as the line says it: `waiting for <what>: <reason>`. */
  what: string;
  /** One try, allowed `timeoutMs` (`attemptTimeoutMs`: longer as the wait goes on). */
  attempt(timeoutMs: number): Promise<Attempt>;
  /** The server's process, when it is ours to see; a server we cannot see is taken to be alive. */
  look?(): Omit<Signs, 'accepts'>;
  /** Pause between tries. */
  pollMs: number;
  stallMs?: number;
  log: Log;
  signal?: AbortSignal;
}

export type WaitOutcome =
  | { kind: 'answered'; ms: number }
  /** Not done, and why not at the last try. */
  | { kind: 'dead' | 'stalled'; reason: string };

function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise((resolve, reject) => {
    const abort = (): void => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * Tries until it is done, as long as the server makes progress (progress.ts), saying what it waits
 * for once the wait gets long and whenever the reason changes (notice.ts). Rejects with the
 * signal's reason when `signal` aborts.
 */
export async function waitWhileProgressing(w: WaitFor): Promise<WaitOutcome> {
  const started = Date.now();
  const notice = new WaitNotice(w.what, w.log);
  let watch: Watch | undefined;
  for (;;) {
    w.signal?.throwIfAborted();
    const result = await abortable(w.attempt(attemptTimeoutMs(Date.now() - started)), w.signal);
    if (result.done) return { kind: 'answered', ms: Date.now() - started };
    const at = Date.now();
    const verdict = judge(watch, { ...(w.look?.() ?? { alive: true }), accepts: result.accepts }, at, w.stallMs);
    if (verdict.kind !== 'waiting') return { kind: verdict.kind, reason: result.reason };
    watch = verdict.watch;
    notice.update(result.reason, at - started);
    await sleep(w.pollMs, undefined, w.signal ? { signal: w.signal } : {}).catch(() => w.signal?.throwIfAborted());
  }
}
