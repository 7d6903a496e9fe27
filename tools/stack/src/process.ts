import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { trackChild } from './cleanup';
import { pidAlive } from './cache';
import { StackError } from './errors';

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
  ready: () => Promise<boolean>;
  readyTimeoutMs: number;
  stopGraceMs?: number;
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

    const deadline = Date.now() + this.opts.readyTimeoutMs;
    for (;;) {
      if (spawnError) throw new StackError(`cannot run ${label} (${command}): ${spawnError.message}`);
      if (gone) {
        throw new StackError(
          `${label} exited during start (${describeExit(child)}); log: ${this.logFile}`,
          logTail(this.logFile),
        );
      }
      // A probe can hit another server that owns the port; only trust it while ours is alive.
      if ((await this.opts.ready().catch(() => false)) && !gone) return;
      if (Date.now() > deadline) {
        await this.kill();
        throw new StackError(
          `${label} did not answer within ${this.opts.readyTimeoutMs / 1000}s; log: ${this.logFile}`,
          logTail(this.logFile),
        );
      }
      await sleep(100);
    }
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
