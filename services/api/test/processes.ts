import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { stopWithParent } from '@entia/stack';

const root = join(__dirname, '..', '..', '..');
export const API_MAIN = join(root, 'services/api/dist/main.js');
export const WORKER_MAIN = join(root, 'services/worker/dist/main.js');

export interface Spawned {
  child: ChildProcess;
  stderr(): string;
  /** The last 256 KiB of what it wrote to stdout (its log), for a test to say why it failed. */
  stdout(): string;
  /** Resolves with the exit code (or signal name) once the process has ended. */
  exited: Promise<number | string>;
  stop(): Promise<number | string>;
}

const STDOUT_KEPT = 256 * 1024;

/** Starts a built service entry point as its own process, as the start command and the image do. */
export function spawnService(main: string, env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [main], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // An interrupted test run must not leave the service behind.
  stopWithParent(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout = (stdout + chunk.toString()).slice(-STDOUT_KEPT)));
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  return {
    child,
    stderr: () => stderr,
    stdout: () => stdout,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Polls `url` until `accept(status)` holds; returns the status. */
export async function waitForStatus(url: string, accept: (status: number) => boolean, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = await fetch(url, { signal: AbortSignal.timeout(3000) }).then(
      (res) => res.status,
      () => 0,
    );
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url}: still ${last} after ${timeoutMs} ms`);
}

/**
 * Environment of the test stack for a spawned service, with the given overrides. The API's metrics
 * listen on any free port unless a test names one: processes side by side never share 9464.
 */
export function stackEnv(overrides: Record<string, string>): Record<string, string> {
  const names = ['MONGODB_URL', 'REDIS_URL', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET', 'S3_REGION', 'JWT_SECRET'];
  const env: Record<string, string> = { LOG_LEVEL: 'warn', HOST: '127.0.0.1', METRICS_PORT: '0' };
  for (const name of names) if (process.env[name]) env[name] = process.env[name]!;
  return { ...env, ...overrides };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A worker process on the queues and data `shared` names (`sharedWith(api)`): one job at a time,
 * and a short job lock, so the jobs of one killed (SIGKILL) are taken up again soon. Resolves once
 * it is ready.
 */
export async function startKillableWorker(shared: Record<string, string>): Promise<Spawned> {
  const port = await freePort();
  const proc = spawnService(WORKER_MAIN, stackEnv({ WORKER_PORT: String(port), ...shared, WORKER_LOCK_MS: '2000', WORKER_CONCURRENCY: '1' }));
  await waitForStatus(`http://127.0.0.1:${port}/readyz`, (status) => status === 200, 20_000);
  return proc;
}
