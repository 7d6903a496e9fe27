import * as fs from 'node:fs';
import * as path from 'node:path';
import { cacheDir } from './cache';
import { StackError } from './errors';
import { stderrLog, type Log } from './log';
import { managed } from './managed';
import { assertPortFree, withPortRetry } from './ports';
import { runCommand, ServerProcess } from './process';
import { redisPing } from './redis-ping';
import type { ManagedServer, StartCommon } from './types';
import { which } from './which';

let installing: Promise<string> | undefined;

async function aptInstallRedis(apt: string, env: NodeJS.ProcessEnv, log: Log): Promise<string> {
  const logFile = path.join(cacheDir(env), 'apt-redis-server.log');
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  log(`redis-server not found; installing it with apt-get (log: ${logFile})`);
  let r = await runCommand(apt, ['install', '-y', 'redis-server'], { env: aptEnv, logFile });
  if (r.code !== 0) {
    // A fresh container often has no package lists yet.
    await runCommand(apt, ['update'], { env: aptEnv, logFile });
    r = await runCommand(apt, ['install', '-y', 'redis-server'], { env: aptEnv, logFile });
  }
  const bin = which('redis-server', env) ?? ['/usr/bin/redis-server', '/usr/sbin/redis-server'].find((p) => fs.existsSync(p));
  if (r.code !== 0 || !bin) {
    throw new StackError(`installing redis-server with apt-get failed (log: ${logFile}): install Redis yourself or set REDIS_URL`);
  }
  return bin;
}

/** The machine's redis-server; as root with apt-get it is installed once when missing. */
export async function findRedisServer(env: NodeJS.ProcessEnv = process.env, log: Log = stderrLog): Promise<string> {
  const found = env.ENTIA_REDIS_SERVER_BIN || which('redis-server', env);
  if (found) return found;
  const apt = which('apt-get', env);
  if (apt && process.getuid?.() === 0) {
    installing ??= aptInstallRedis(apt, env, log).finally(() => (installing = undefined));
    return installing;
  }
  throw new StackError(
    'redis-server not found on PATH: install it (`sudo apt-get install -y redis-server`, `brew install redis`) or set REDIS_URL to a running Redis',
  );
}

export async function startRedis(opts: StartCommon): Promise<ManagedServer & { url: string }> {
  const env = opts.env ?? process.env;
  const bin = await findRedisServer(env, opts.log ?? stderrLog);
  const dataDir = path.join(opts.dir, 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  return withPortRetry(opts.port, async (port) => {
    await assertPortFree(port, 'redis');
    const proc = new ServerProcess({
      label: 'redis-server',
      command: bin,
      // Nothing is persisted: queues and caches are disposable in development and tests.
      args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dataDir, '--daemonize', 'no'],
      env,
      dir: opts.dir,
      logName: 'redis.log',
      port,
      ready: (timeoutMs) => redisPing(port, '127.0.0.1', timeoutMs),
      log: opts.log ?? stderrLog,
      signal: opts.signal,
    });
    await proc.start();
    return Object.assign(managed('redis', port, proc), { url: `redis://127.0.0.1:${port}` });
  });
}
