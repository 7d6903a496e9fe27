import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { trackChild } from './cleanup';
import { pidAlive } from './cache';
import { StackError } from './errors';
import type { Log } from './log';
import { cpuTicks, fileSize } from './proc-stat';
import { STALL_MS } from './progress';
import { takesConnections } from './tcp-probe';
import { waitWhileProgressing, type Attempt, type WaitOutcome } from './wait';

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function logTail(file: string, lines = 15): string[] {
  try {
    const text = fs.readFileSync(file, 'utf8');
    return text.split('\n').filter((l) => l.trim()).slice(-lines).map((l) => `  | ${l}`);
  } catch {
    return [];
  }
}

function exitPromise(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('close', () => resolve());
  });
}

/** Where a binary was spawned, so a later run can tell its own orphans from someone else's. */
interface PidFile {
  pid: number;
  owner: number;
  command: string;
}

/** Whether pid runs `command`; by /proc/<pid>/exe, since servers like Redis rewrite argv[0]. */
function runs(pid: number, command: string): boolean {
  try {
    return fs.realpathSync(`/proc/${pid}/exe`) === fs.realpathSync(command);
  } catch {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(command);
    } catch {
      return false;
    }
  }
}

/**
 * A parent killed with SIGKILL cannot stop its servers; the next run on the same persistent
 * dir would then fight the orphan for the data. Kill it if it is ours (same binary, owner dead).
 */
async function reapOrphan(pidFile: string, command: string, label: string): Promise<void> {
  let info: PidFile;
  try {
    info = JSON.parse(fs.readFileSync(pidFile, 'utf8')) as PidFile;
  } catch {
    return;
  }
  if (!pidAlive(info.pid) || !runs(info.pid, command)) return;
  if (info.owner !== process.pid && pidAlive(info.owner)) {
    throw new StackError(
      `${label} data in ${path.dirname(pidFile)} is in use by another stack (pid ${info.owner}): stop that one first`,
    );
  }
  process.kill(info.pid, 'SIGKILL');
  for (let i = 0; i < 50 && pidAlive(info.pid); i++) await sleep(100);
}

export interface ServerProcessOptions {
  label: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** The server's own dir: holds its log file and pid file. */
  dir: string;
  logName: string;
  /** Where it listens on 127.0.0.1: whether it takes connections yet is what the wait's line says. */
  port: number;
  /** Whether it answers, asked with a time limit. */
  ready: (timeoutMs: number) => Promise<boolean>;
  /** How long it may start without a sign of progress (progress.ts, STALL_MS). */
  stallMs?: number;
  stopGraceMs?: number;
  log: Log;
  /** Gives up waiting for it (Ctrl-C while the stack starts): it is stopped, and start rejects with the reason. */
  signal?: AbortSignal;
}

/** One long-running server binary: spawn, wait until it answers, stop by pid. */
export class ServerProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private gone = true;
  private paused = false;
  readonly logFile: string;
  private readonly pidFile: string;

  constructor(private readonly opts: ServerProcessOptions) {
    this.logFile = path.join(opts.dir, opts.logName);
    this.pidFile = path.join(opts.dir, `${opts.logName.replace(/\.log$/, '')}.pid`);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && !this.gone;
  }

  async start(): Promise<void> {
    const { label, command, args, dir } = this.opts;
    fs.mkdirSync(dir, { recursive: true });
    await reapOrphan(this.pidFile, command, label);
    fs.appendFileSync(this.logFile, `\n=== ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
    const fd = fs.openSync(this.logFile, 'a');
    let child: ChildProcess;
    try {
      // detached: a terminal Ctrl-C must reach only us, so we can stop the app before its stores.
      child = spawn(command, args, { cwd: dir, env: this.opts.env ?? process.env, stdio: ['ignore', fd, fd], detached: true });
    } finally {
      fs.closeSync(fd);
    }
    let gone = false;
    let spawnError: Error | undefined;
    this.child = child;
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', (err) => {
        spawnError ??= err;
        resolve();
      });
    }).then(() => {
      gone = true;
      if (this.child === child) this.gone = true;
    });
    this.gone = false;
    this.paused = false;
    const untrack = trackChild(child, () => this.stop());
    void this.exited.then(() => {
      untrack();
      this.removePidFile(child.pid);
    });
    child.unref();
    if (child.pid) {
      fs.writeFileSync(this.pidFile, JSON.stringify({ pid: child.pid, owner: process.pid, command } satisfies PidFile));
    }

    // No fixed deadline: a first answer slow on a busy machine is waited for while the process works.
    const attempt = async (timeoutMs: number): Promise<Attempt> => {
      // A probe can hit another server that owns the port; only trust it while ours is alive.
      if (!gone && (await this.opts.ready(timeoutMs).catch(() => false)) && !gone) return { done: true };
      return (await takesConnections(this.opts.port))
        ? { done: false, accepts: true, reason: 'it takes connections but has not answered yet' }
        : { done: false, accepts: false, reason: 'it does not take connections yet' };
    };
    let outcome: WaitOutcome;
    try {
      outcome = await waitWhileProgressing({
        what: `${label} to answer on 127.0.0.1:${this.opts.port}`,
        attempt,
        look: () => ({ alive: !gone, cpuTicks: cpuTicks(child.pid), logBytes: fileSize(this.logFile) }),
        pollMs: 100,
        stallMs: this.opts.stallMs,
        log: this.opts.log,
        signal: this.opts.signal,
      });
    } catch (err) {
      // Aborted (Ctrl-C): stopped as it would be once up.
      await this.stop();
      throw err;
    }
    // Its starter says it is ready, and how long it took.
    if (outcome.kind === 'answered') return;
    if (spawnError) throw new StackError(`cannot run ${label} (${command}): ${spawnError.message}`);
    if (outcome.kind === 'dead') {
      throw new StackError(`${label} exited during start (${describeExit(child)}); log: ${this.logFile}`, logTail(this.logFile));
    }
    await this.kill();
    throw new StackError(
      `${label} did not answer and showed no sign of progress for ${(this.opts.stallMs ?? STALL_MS) / 1000}s ` +
        `(no CPU time used, nothing logged; ${outcome.reason}); log: ${this.logFile}`,
      logTail(this.logFile),
    );
  }

  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return this.exited;
    child.ref(); // unref'd children do not keep Node alive, but waiting for this one must
    child.kill('SIGTERM');
    // A stopped process only acts on SIGTERM once it runs again.
    if (this.paused) this.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), this.opts.stopGraceMs ?? 5000);
    await this.exited;
    clearTimeout(timer);
  }

  async kill(): Promise<void> {
    if (this.child && this.running) {
      this.child.ref();
      this.child.kill('SIGKILL');
    }
    return this.exited;
  }

  /**
   * SIGSTOP: the process stays, its listening socket still completes TCP handshakes (the kernel
   * does that), but nothing is read or answered: a hung server, as opposed to a crashed one.
   */
  pause(): void {
    if (!this.child || !this.running) throw new StackError('cannot pause a server that is not running');
    this.child.kill('SIGSTOP');
    this.paused = true;
  }

  /** SIGCONT: the paused process carries on where it stopped. */
  resume(): void {
    if (this.child && this.running) this.child.kill('SIGCONT');
    this.paused = false;
  }

  private removePidFile(pid: number | undefined): void {
    try {
      const info = JSON.parse(fs.readFileSync(this.pidFile, 'utf8')) as PidFile;
      if (info.pid === pid) fs.rmSync(this.pidFile, { force: true });
    } catch {
      // dir may already be gone (ephemeral stacks)
    }
  }
}

function describeExit(child: ChildProcess): string {
  return child.signalCode ? `signal ${child.signalCode}` : `exit code ${child.exitCode}`;
}

export interface RunResult {
  code: number;
  stdout: string;
}

/** A short-lived tool (go, apt-get): output appended to a log, stdout also returned. */
export function runCommand(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; logFile: string },
): Promise<RunResult> {
  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  fs.appendFileSync(opts.logFile, `\n=== ${new Date().toISOString()} ${command} ${args.join(' ')}\n`);
  const log = fs.createWriteStream(opts.logFile, { flags: 'a' });
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const untrack = trackChild(child, async () => {
      child.kill('SIGTERM');
      await exitPromise(child);
    });
    let stdout = '';
    child.stdout!.on('data', (b: Buffer) => {
      stdout += b.toString();
      log.write(b);
    });
    child.stderr!.on('data', (b: Buffer) => log.write(b));
    child.once('error', (err) => {
      untrack();
      log.end();
      reject(err);
    });
    child.once('close', (code, signal) => {
      untrack();
      log.end(() => resolve({ code: code ?? (signal ? 128 : 1), stdout }));
    });
  });
}
