/** Asks one dependency whether it answers: resolves when it does. */
export type Check = () => Promise<unknown>;

export interface Readiness {
  ready: boolean;
  /** Names every dependency with `up` or `down`. */
  checks: Record<string, 'up' | 'down'>;
  /** Why each failing dependency failed, for the log (not the response). */
  failures: Record<string, string>;
}

function withTimeout(check: Check, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([check(), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Asks every dependency at once; one that does not answer within `timeoutMs` counts as down, so a
 * probe answers in time however hung a dependency is. What "ready" then means is each service's.
 */
export async function probe(checks: Record<string, Check>, timeoutMs: number): Promise<Readiness> {
  const names = Object.keys(checks);
  const results = await Promise.allSettled(names.map((name) => withTimeout(checks[name]!, timeoutMs)));
  const readiness: Readiness = { ready: true, checks: {}, failures: {} };
  results.forEach((result, i) => {
    const name = names[i]!;
    readiness.checks[name] = result.status === 'fulfilled' ? 'up' : 'down';
    if (result.status === 'rejected') {
      readiness.ready = false;
      readiness.failures[name] = result.reason instanceof Error ? result.reason.message : String(result.reason);
    }
  });
  return readiness;
}
