export type Log = (line: string) => void;

/** Stack chatter goes to stderr so stdout stays clean for env lines and test summaries. */
export const stderrLog: Log = (line) => {
  process.stderr.write(`[stack] ${line}\n`);
};

export function seconds(sinceMs: number): string {
  return `${((Date.now() - sinceMs) / 1000).toFixed(1)}s`;
}
