import * as path from 'node:path';
import { cacheDir } from './cache';
import { StackError } from './errors';
import type { Log } from './log';
import { runCommand } from './process';
import { which } from './which';

/**
 * The clients the deployment checks run offline (tools/deploy): `docker compose config` and
 * `kubectl kustomize`. Neither needs a Docker engine or a cluster. Installed once when missing —
 * Compose built from the Go module proxy, kubectl from Debian — so a fresh machine runs every
 * check instead of skipping it. A failure stops the test run with one line.
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
  const apt = which('apt-get', env);
  if (!which('kubectl', env) && apt && process.getuid?.() === 0) {
    log(`kubectl not found; installing it with apt-get (log: ${logFile})`);
    const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
    let result = await runCommand(apt, ['install', '-y', 'kubectl'], { env: aptEnv, logFile });
    if (result.code !== 0) {
      await runCommand(apt, ['update'], { env: aptEnv, logFile });
      result = await runCommand(apt, ['install', '-y', 'kubectl'], { env: aptEnv, logFile });
    }
    if (result.code !== 0) throw new StackError(`installing kubectl with apt-get failed (log: ${logFile}): install kubectl yourself`);
  }
}
