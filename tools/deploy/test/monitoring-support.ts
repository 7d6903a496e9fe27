import { ensureBinary, PROMTOOL } from '@entia/stack';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Shared by the monitoring*.test.ts files: where monitoring/ is, and promtool. */
export const repo = join(__dirname, '..', '..', '..');
export const MONITORING = join(repo, 'monitoring');
export const readMonitoring = (file: string) => readFileSync(join(MONITORING, file), 'utf8');

/**
 * On a fresh machine the first run builds promtool from the Go module proxy (`npm test` does it
 * before jest starts: tools/stack/src/test-tools.ts); once built it is cached for every checkout.
 */
export const PROMTOOL_BUILD_TIMEOUT_MS = 30 * 60_000;

export async function promtoolPath(): Promise<string> {
  return (await ensureBinary(PROMTOOL, process.env, (line) => process.stderr.write(`${line}\n`))).path;
}

/** Runs promtool; its whole output (stdout and stderr) for the assertion messages. */
export function promtool(bin: string, args: string[], cwd: string): { code: number | null; output: string } {
  const result = spawnSync(bin, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}
