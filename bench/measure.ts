export interface Latency {
  iterations: number;
  warmup: number;
  p50: number;
  p95: number;
  max: number;
  min: number;
  mean: number;
  /** Measuring stopped at the time budget before reaching the requested iterations. */
  budgetHit: boolean;
}

/** Nearest-rank percentile of ascending `sorted` (p in 0…1). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * Runs `fn` `warmup` times unmeasured, then up to `iterations` times one after another
 * (concurrency 1), timing each call; stops early once `budgetMs` (0 = none) is spent and at least
 * `minIterations` ran.
 */
export async function measure(
  fn: () => Promise<unknown>,
  options: { iterations: number; warmup: number; budgetMs: number; minIterations: number },
): Promise<Latency> {
  for (let i = 0; i < options.warmup; i++) await fn();
  const samples: number[] = [];
  const started = performance.now();
  let budgetHit = false;
  for (let i = 0; i < options.iterations; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
    if (options.budgetMs > 0 && performance.now() - started > options.budgetMs && samples.length >= options.minIterations && i < options.iterations - 1) {
      budgetHit = true;
      break;
    }
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    iterations: samples.length,
    warmup: options.warmup,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    max: sorted[sorted.length - 1]!,
    min: sorted[0]!,
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
    budgetHit,
  };
}
