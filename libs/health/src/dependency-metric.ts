import { probe, type Check } from './probe';

/**
 * `entia_dependency_up{dependency}`: 1 when the dependency answered the readiness check at scrape
 * time, 0 when it failed or did not answer within the timeout. Readiness stays 200 through a
 * shared outage (docs/decisions.md, "Fast failures and readiness"), so the probes cannot tell an
 * alert that MongoDB, Redis or the bucket is gone: this gauge, from the same checks, can. Each
 * service makes the Gauge with its own prom-client registry (as with MONGODB_COMMANDS_METRIC).
 */
export const DEPENDENCY_UP_METRIC = {
  name: 'entia_dependency_up',
  help: 'Whether each dependency answered the readiness check (1) or not (0), asked at scrape time within READINESS_TIMEOUT_MS.',
  labelNames: ['dependency'] as const,
};

/** Runs the checks (bounded by `timeoutMs`) and hands each dependency's 1 or 0 to `set`. */
export async function measureDependencies(checks: Record<string, Check>, timeoutMs: number, set: (dependency: string, up: 0 | 1) => void): Promise<void> {
  const { checks: states } = await probe(checks, timeoutMs);
  for (const [dependency, state] of Object.entries(states)) set(dependency, state === 'up' ? 1 : 0);
}
