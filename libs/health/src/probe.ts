/** Asks one dependency whether it answers: resolves when it does. */
export type Check = () => Promise<unknown>;

export interface Readiness {
  ready: boolean;
  /** Names every dependency with `up` or `down`. */
  checks: Record<string, 'up' | 'down'>;
  /** Why each failing dependency failed, in one line (`failureReason`): for the log and the probe's answer. */
  failures: Record<string, string>;
}

const MAX_REASON = 200;

/**
 * One line saying why a check failed: the error's message, and its cause's code where the message
 * does not name it ("object storage did not answer (ECONNREFUSED)"). The clients' messages name
 * the server's address at most, never a credential.
 */
export function failureReason(error: unknown): string {
  // Read by shape, not `instanceof Error`: socket errors are made by Node's core, in another realm than a test's.
  const { message, name, cause } = (error ?? {}) as { message?: unknown; name?: unknown; cause?: { code?: unknown } };
  if (typeof message !== 'string') return String(error).slice(0, MAX_REASON);
  const line = (message.split('\n')[0] || String(name)).slice(0, MAX_REASON);
  const code = cause?.code;
  return typeof code === 'string' && !line.includes(code) ? `${line} (${code})` : line;
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
      readiness.failures[name] = failureReason(result.reason);
    }
  });
  return readiness;
}
