import { StackError, errorMessage } from './errors';
import { httpRequest } from './http';
import type { Log } from './log';
import { STALL_MS } from './progress';
import { waitWhileProgressing, type Attempt } from './wait';

/** Why a /readyz answer other than 200 is not ready: its problem's `detail` ("starting: mongodb unreachable (…)"), else its status. */
export function notReadyReason(status: number, body: string): string {
  try {
    const detail = (JSON.parse(body) as { detail?: unknown }).detail;
    if (typeof detail === 'string' && detail.trim()) return detail.trim();
  } catch {
    // not a problem document: the status says all there is
  }
  return `HTTP ${status}`;
}

async function askReadyz(port: number, timeoutMs: number): Promise<Attempt> {
  try {
    const reply = await httpRequest(`http://127.0.0.1:${port}/readyz`, { timeoutMs });
    if (reply.status === 200) return { done: true };
    return { done: false, accepts: true, reason: notReadyReason(reply.status, reply.body) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? errorMessage(err);
    return { done: false, accepts: false, reason: `it does not answer GET /readyz yet (${code})` };
  }
}

/**
 * Until the API's GET /readyz answers 200. An API that answers 503 is waiting for something
 * itself (its `detail` says what, and the line here repeats it) and is waited for without limit;
 * one that has not answered at all for `stallMs` is a failure. Its exit is the caller's to watch.
 */
export async function waitApiReady(port: number, opts: { log: Log; signal?: AbortSignal; stallMs?: number }): Promise<void> {
  const outcome = await waitWhileProgressing({ what: 'the API to be ready', attempt: (ms) => askReadyz(port, ms), pollMs: 250, ...opts });
  if (outcome.kind === 'answered') return;
  throw new StackError(
    `the API has not answered GET /readyz for ${(opts.stallMs ?? STALL_MS) / 1000}s (${outcome.reason}; see [api] output above)`,
  );
}
