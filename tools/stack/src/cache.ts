import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StackError } from './errors';
import type { Log } from './log';

/** Outside the work tree so every checkout and CI job on the machine shares one build. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ENTIA_CACHE_DIR) return path.resolve(env.ENTIA_CACHE_DIR);
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'entia');
}

export function binDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDir(env), 'bin');
}

interface LockOwner {
  pid: number;
  host: string;
  startedAt: number;
}

// A build takes minutes; anything far older was abandoned by a process on another host.
const STALE_AFTER_MS = 60 * 60 * 1000;

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie still answers kill(0); some container inits reap orphans late.
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no procfs (macOS): trust kill(0)
  }
}

function readOwner(lockDir: string): LockOwner | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(lockDir, 'owner.json'), 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

function isStale(lockDir: string): boolean {
  const owner = readOwner(lockDir);
  if (!owner) {
    // The owner writes owner.json right after mkdir; give it a moment before calling it dead.
    return Date.now() - fs.statSync(lockDir).mtimeMs > 10_000;
  }
  if (Date.now() - owner.startedAt > STALE_AFTER_MS) return true;
  return owner.host === os.hostname() && !pidAlive(owner.pid);
}

/**
 * mkdir is atomic on every filesystem we care about, so it doubles as a cross-process lock.
 * A lock left by a killed process (dead pid on this host, or very old) is taken over.
 */
export async function withLock<T>(lockDir: string, log: Log, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(path.dirname(lockDir), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StackError(`cannot create lock ${lockDir}: ${(err as Error).message} (check permissions of ${path.dirname(lockDir)})`);
      }
      let stale = false;
      try {
        stale = isStale(lockDir);
      } catch {
        continue; // vanished between mkdir and stat: just retry
      }
      if (stale) {
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!announced) {
        const owner = readOwner(lockDir);
        log(`waiting for another build (pid ${owner?.pid ?? '?'}) holding ${lockDir}`);
        announced = true;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  const owner: LockOwner = { pid: process.pid, host: os.hostname(), startedAt: Date.now() };
  fs.writeFileSync(path.join(lockDir, 'owner.json'), JSON.stringify(owner));
  const release = (): void => fs.rmSync(lockDir, { recursive: true, force: true });
  process.once('exit', release);
  try {
    return await fn();
  } finally {
    process.removeListener('exit', release);
    release();
  }
}
