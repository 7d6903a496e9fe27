/** A whole-number option (from `--name` or its `BENCH_*` variable), `fallback` when unset. */
export function integer(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be a whole number >= ${min} (got ${JSON.stringify(text)})`);
  return value;
}
