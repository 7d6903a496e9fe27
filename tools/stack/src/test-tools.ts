import * as fs from 'node:fs';
import * as path from 'node:path';
import { aptInstall, canApt } from './apt';
import { ensureBinary, PROMTOOL } from './build';
import { cacheDir } from './cache';
import { StackError } from './errors';
import type { Log } from './log';
import { runCommand } from './process';
import { which } from './which';

/** Debian's Chromium, which the browser test drives (playwright-core brings no browser of its own). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * What the tests need beyond npm packages, installed once when missing so a fresh machine runs
 * every test instead of skipping it: the clients the deployment checks run offline (tools/deploy:
 * `docker compose config`, `kubectl kustomize`; neither needs a Docker engine or a cluster) —
 * Compose built from the Go module proxy, kubectl from Debian — Debian's Chromium for the
 * browser test (services/api/test/browser.test.ts), and promtool for the alert rules' and the
 * dashboard's tests (tools/deploy/test/monitoring*.test.ts; built from the Go module proxy once
 * per machine and cached like FerretDB: a few minutes the first time). A failure stops the test
 * run with one line.
 */
export async function ensureTestTools(repo: string, env: NodeJS.ProcessEnv, log: Log): Promise<void> {
  const logFile = path.join(cacheDir(env), 'test-tools.log');
  const docker = which('docker', env);
  if (docker && (await runCommand(docker, ['compose', 'version'], { env, logFile })).code !== 0) {
    log(`building the Docker Compose client (once; log: ${logFile})`);
    const script = path.join(repo, 'tools', 'deploy', 'scripts', 'build-compose.sh');
    if ((await runCommand('bash', [script], { env, logFile })).code !== 0) {
      throw new StackError(`building docker compose failed (log: ${logFile}): run \`bash ${path.relative(repo, script)}\` to see why`);
    }
  }
  const apt = canApt(env);
  if (!which('kubectl', env) && apt) await aptInstall(apt, 'kubectl', env, log, logFile);
  await ensureBinary(PROMTOOL, env, log);
  // Never a browser build from anywhere else: only the distribution's package.
  if (!fs.existsSync(CHROMIUM_PATH)) {
    if (!apt) {
      log(`${CHROMIUM_PATH} is missing and cannot be installed here (needs root and apt-get): the browser test will fail; install Debian's chromium`);
      return;
    }
    await aptInstall(apt, 'chromium', env, log, logFile);
    if (!fs.existsSync(CHROMIUM_PATH)) throw new StackError(`apt-get installed chromium but ${CHROMIUM_PATH} is missing (log: ${logFile})`);
  }
}
