import * as fs from 'node:fs';
import type { StackEnv } from './types';

/**
 * Writes the running stack's environment where other commands (e.g. `npm run db:create`) can read
 * it; returns the lines and a function that removes the file again when the stack stops.
 */
export function writeEnvFile(file: string, env: StackEnv): { lines: string[]; remove(): void } {
  const lines = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return { lines, remove: () => fs.rmSync(file, { force: true }) };
}
