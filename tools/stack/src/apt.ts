import { StackError } from './errors';
import type { Log } from './log';
import { runCommand } from './process';
import { which } from './which';

/** Whether Debian packages can be installed here: apt-get exists and we are root. */
export function canApt(env: NodeJS.ProcessEnv): string | undefined {
  const apt = which('apt-get', env);
  return apt && process.getuid?.() === 0 ? apt : undefined;
}

/**
 * `apt-get install -y <pkg>` from Debian's archive, with `apt-get update` and one more try when the
 * first attempt fails (a fresh machine has no package lists, an old one stale lists). The dpkg lock
 * is waited for, not failed on: another test run on the machine may be installing at the same time.
 */
export async function aptInstall(apt: string, pkg: string, env: NodeJS.ProcessEnv, log: Log, logFile: string): Promise<void> {
  log(`${pkg} not found; installing it with apt-get (log: ${logFile})`);
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  const wait = ['-o', 'DPkg::Lock::Timeout=600'];
  const install = () => runCommand(apt, [...wait, 'install', '-y', '--no-install-recommends', pkg], { env: aptEnv, logFile });
  let result = await install();
  if (result.code !== 0) {
    await runCommand(apt, [...wait, 'update'], { env: aptEnv, logFile });
    result = await install();
  }
  if (result.code !== 0) throw new StackError(`installing ${pkg} with apt-get failed (log: ${logFile}): install ${pkg} yourself`);
}
