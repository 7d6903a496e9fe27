import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { watchDir, watchPid } from './watchdog';

/**
 * Everything this process started, so nothing outlives it: on a normal exit children get
 * SIGKILL (an exit hook cannot wait), on SIGINT/SIGTERM/SIGHUP they get a graceful stop first.
 * When the application has its own handler for a signal we leave the ordering to it and only
 * keep the exit hook as a safety net. For deaths no hook sees (SIGKILL) there is the watchdog.
 */
interface Tracked {
  child: ChildProcess;
  stop: () => Promise<void>;
}

const children = new Set<Tracked>();
const fileCleanups = new Set<() => void>();
let installed = false;
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function killAllNow(): void {
  for (const t of children) {
    try {
      t.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const fn of fileCleanups) {
    try {
      fn();
    } catch {
      // best effort at exit
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  void (async () => {
    await Promise.allSettled([...children].map((t) => t.stop()));
    killAllNow();
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    // Re-raise so the process ends the way it would have without us.
    process.kill(process.pid, signal);
  })();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAllNow);
  for (const s of SIGNALS) process.on(s, onSignal);
}

export function trackChild(child: ChildProcess, stop: () => Promise<void>): () => void {
  install();
  const t: Tracked = { child, stop };
  children.add(t);
  const unwatch = watchPid(child.pid);
  return () => {
    if (children.delete(t)) unwatch();
  };
}

/** A temp dir removed at exit unless untracked first (after the owner removed it itself). */
export function trackTempDir(dir: string): () => void {
  install();
  const fn = (): void => fs.rmSync(dir, { recursive: true, force: true });
  fileCleanups.add(fn);
  const unwatch = watchDir(dir);
  return () => {
    if (fileCleanups.delete(fn)) unwatch();
  };
}

/**
 * For processes spawned outside this package (a test's own API process): stopped with the
 * parent however it ends — SIGKILL at exit, or SIGTERM from the watchdog if the parent is
 * killed outright. Returns an untrack function.
 */
export function stopWithParent(child: ChildProcess): () => void {
  const untrack = trackChild(child, async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await gone;
  });
  child.once('exit', untrack);
  return untrack;
}
