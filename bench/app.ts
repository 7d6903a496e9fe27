import { loadConfig } from '@entia/config';
import { openEntities, type Entities } from '@entia/entities';
import type { JobProducer } from '@entia/jobs';

/**
 * The application as the benchmarks use it, opened through the services' one door
 * (`openEntities`) from the stack's environment (`.stack/env`), with the benchmark's own time
 * limits. Jobs are not scheduled: the seed's schema writes would only ask for reindexes of types
 * that have no entities yet, and a settle job left behind would run beside the timed scenarios.
 */
export function openBenchApp(limits: { controlDb?: string; timeoutMs: number; reachMs: number }): Entities {
  const config = loadConfig({
    ...process.env,
    ...(limits.controlDb ? { MONGODB_CONTROL_DB: limits.controlDb } : {}),
    MONGODB_TIMEOUT_MS: String(limits.timeoutMs),
    DEPENDENCY_TIMEOUT_MS: String(limits.reachMs),
    LOG_LEVEL: 'silent',
  });
  const quiet = () => undefined;
  const app = openEntities(config, { debug: quiet, info: quiet, warn: quiet, error: quiet }, { connection: {} });
  return { ...app, jobs: { enqueue: async () => 'not-scheduled-by-the-benchmark', close: async () => undefined } as unknown as JobProducer };
}
