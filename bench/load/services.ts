import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { stopWithParent } from '@entia/stack';

// The services of this checkout, or of another built one (BENCH_SERVICES_ROOT): a before/after
// comparison measures two builds with the same benchmark.
const ROOT = resolve(process.env.BENCH_SERVICES_ROOT ?? join(__dirname, '..', '..', '..'));

/**
 * Node options for the services under measurement (BENCH_SERVICES_NODE_OPTIONS, e.g.
 * `--max-semi-space-size=16`): a runtime setting compared under the same load. Never the
 * benchmark's own NODE_OPTIONS, which would change the load generator too.
 */
const serviceNodeOptions = (): Record<string, string> =>
  process.env.BENCH_SERVICES_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVICES_NODE_OPTIONS } : {};

export interface Service {
  name: string;
  pid: number;
  /** Where its stdout and stderr (the JSON log) go. */
  logFile: string;
  /** With a profile directory: the CPU profile it writes there when it stops. */
  profileFile?: string;
  /** With a trace directory: the command trace it appends to (`command-trace.ts`). */
  traceFile?: string;
  stop(): Promise<void>;
}

async function ready(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    const status = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} not ready within ${timeoutMs} ms`);
}

/** How a service runs besides its environment: under the profiler, under the command trace. */
export interface Instruments {
  profileDir?: string;
  traceDir?: string;
}

/**
 * Starts a built service (`services/<name>/dist/main.js`) as its own process, as `npm start` does;
 * with `profileDir`, V8 writes its CPU profile there when it stops (open it in Chrome DevTools);
 * with `traceDir`, it appends every MongoDB command and the code that sent it to a file there.
 */
export async function startService(name: 'api' | 'worker', env: Record<string, string>, healthPort: number, { profileDir, traceDir }: Instruments = {}): Promise<Service> {
  const logFile = join(tmpdir(), `entia-bench-${name}-${process.pid}.log`);
  const log = openSync(logFile, 'w');
  const profileName = `${name}-${process.pid}.cpuprofile`;
  const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName}`] : [];
  const traceFile = traceDir ? join(traceDir, `${name}-${process.pid}.ndjson`) : undefined;
  // The trace hooks the driver from this checkout's bench build, whichever services run.
  const tracing = traceFile ? ['--enable-source-maps', '--require', join(__dirname, 'command-trace.js')] : [];
  const child = spawn(process.execPath, [...profiling, ...tracing, join(ROOT, 'services', name, 'dist', 'main.js')], {
    env: { PATH: process.env.PATH ?? '', ...serviceNodeOptions(), ...env, ...(traceFile ? { ENTIA_COMMAND_TRACE_FILE: traceFile, ENTIA_COMMAND_TRACE_ROOT: ROOT } : {}) },
    stdio: ['ignore', log, log],
  });
  // Stopped with the benchmark however it ends (Ctrl-C, SIGTERM, a crash): no orphaned services.
  stopWithParent(child);
  await ready(`http://127.0.0.1:${healthPort}/readyz`, child);
  return {
    name,
    pid: child.pid!,
    logFile,
    ...(profileDir ? { profileFile: join(profileDir, profileName) } : {}),
    ...(traceFile ? { traceFile } : {}),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
