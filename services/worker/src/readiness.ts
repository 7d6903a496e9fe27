import { probe, type Check } from '@entia/health';

type State = 'up' | 'down';

export interface WorkerReadiness {
  /** Whether /readyz answers 200. */
  ready: boolean;
  body: { status: 'ready' | 'degraded' | 'unavailable'; checks: Record<string, State>; degraded?: string[]; reasons?: Record<string, string>; detail?: string };
  /** Why each failing dependency failed, for the log (not the response). */
  failures: Record<string, string>;
}

/**
 * The worker's readiness, with the API's meaning (docs/decisions.md, "Fast failures and
 * readiness"), from the shared `probe` (within READINESS_TIMEOUT_MS however hung a dependency
 * is). Not ready until every dependency has answered
 * once (a wrong URL stalls a rollout) and once the worker stopped taking jobs (SIGTERM); after
 * that, a dependency that is down makes it `degraded`, still 200: every replica shares it, and
 * taking them all out of service at once would only block node drains and rollouts.
 */
export function readinessProbe(
  checks: Record<string, Check>,
  timeoutMs: number,
  running: () => boolean,
  /** Why jobs are held back although the worker could run (the stored schema is older than the code's). */
  held: () => string | undefined = () => undefined,
): () => Promise<WorkerReadiness> {
  let started = false;
  return async () => {
    const { checks: states, failures } = await probe(checks, timeoutMs);
    const down = Object.keys(failures);
    started ||= down.length === 0;
    const reason = held();
    const known = { checks: states, ...(down.length > 0 ? { reasons: failures } : {}) };
    // First what it waits for: a schema that cannot be read, or jobs not started, follow from it.
    if (!started) {
      const detail = `starting: ${down.map((name) => `${name} unreachable (${failures[name]})`).join(', ')}`;
      return { ready: false, body: { status: 'unavailable', ...known, detail }, failures };
    }
    if (reason !== undefined) return { ready: false, body: { status: 'unavailable', ...known, detail: reason }, failures };
    if (!running()) return { ready: false, body: { status: 'unavailable', ...known, detail: 'not taking jobs' }, failures };
    if (down.length > 0) return { ready: true, body: { status: 'degraded', degraded: down, ...known }, failures };
    return { ready: true, body: { status: 'ready', ...known }, failures };
  };
}
