import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseEnv } from 'node:util';

/**
 * `entia-admin` as `npm run admin` runs it: on the pinned Node (the caller re-executes first), with
 * the running local stack's settings from `.stack/env` when there is one (they win over the
 * caller's environment, as they did when a shell sourced the file). Resolves to its exit code.
 */
export function runAdmin(repo: string, envFile: string, args: string[]): Promise<number> {
  const stack = fs.existsSync(envFile) ? parseEnv(fs.readFileSync(envFile, 'utf8')) : {};
  const child = spawn(process.execPath, [path.join(repo, 'services/api/dist/cli/admin.js'), ...args], { stdio: 'inherit', env: { ...process.env, ...stack } });
  return new Promise((resolve) => {
    child.once('error', () => resolve(1));
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}
