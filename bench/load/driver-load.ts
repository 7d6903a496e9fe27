import { summarise, type Throughput } from './stats';

/**
 * The database ceiling: `operation` issued straight through the driver by `concurrency` loops for
 * `seconds`, the way the API's requests would overlap.
 */
export async function driverLoad(concurrency: number, seconds: number, operation: (i: number) => Promise<unknown>): Promise<Throughput> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        try {
          await operation(next++);
          latencies.push(performance.now() - t);
        } catch {
          errors++;
        }
      }
    }),
  );
  return summarise(latencies, (performance.now() - started) / 1000, errors, { ok: latencies.length, ...(errors ? { error: errors } : {}) });
}
