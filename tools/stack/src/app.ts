import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { trackChild } from './cleanup';
import { writeEnvFile } from './envfile';
import { waitApiReady } from './api-ready';
import { StackError } from './errors';
import { stderrLog } from './log';
import { assertPortFree } from './ports';
import { keepAlive, onceSignal } from './signals';
import { startStack } from './stack';

interface App {
  name: string;
  child: ChildProcess;
  exited: Promise<string>;
}

function prefixLines(stream: NodeJS.ReadableStream, out: NodeJS.WritableStream, prefix: string): void {
  readline.createInterface({ input: stream }).on('line', (line) => out.write(`${prefix} ${line}\n`));
}

function startApp(name: string, main: string, cwd: string, env: NodeJS.ProcessEnv, args: string[] = []): App {
  // detached: a terminal Ctrl-C reaches only the CLI, which then stops things in order.
  const child = spawn(process.execPath, [main, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  prefixLines(child.stdout!, process.stdout, `[${name}]`);
  prefixLines(child.stderr!, process.stderr, `[${name}]`);
  const exited = new Promise<string>((resolve) => {
    child.once('error', (err) => resolve(err.message));
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`));
  });
  const untrack = trackChild(child, () => stopApp({ name, child, exited }));
  void exited.then(untrack);
  return { name, child, exited };
}

async function stopApp(app: App, graceMs = 10_000): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return;
  app.child.kill('SIGTERM');
  const timer = setTimeout(() => app.child.kill('SIGKILL'), graceMs);
  await app.exited;
  clearTimeout(timer);
}

/**
 * `entia-admin migrate` before the API and worker, as the compose one-shot and the Kubernetes Job
 * do (docs/deployment.md, "Upgrading (migrations)"): data kept in .stack/data from an older
 * checkout is brought up to this one's schema, instead of the API refusing it. Resolves to why it
 * failed, or undefined.
 */
async function runMigrate(main: string, cwd: string, env: NodeJS.ProcessEnv, signal: Promise<unknown>): Promise<string | undefined> {
  const app = startApp('migrate', main, cwd, env, ['migrate']);
  // Ctrl-C meanwhile stops it (a run cut short resumes at the next start; its lock expires).
  const how = await Promise.race([app.exited, signal.then(() => stopApp(app).then(() => 'signal'))]);
  if (how === 'signal') return undefined;
  return how === 'exit code 0' ? undefined : `entia-admin migrate failed (${how}; see [migrate] output above)`;
}

type Outcome = { kind: 'ready' } | { kind: 'signal'; signal: NodeJS.Signals } | { kind: 'crash'; why: string };

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (!raw) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new StackError(`${name}=${raw} is not a TCP port: fix or unset it`);
  return port;
}

/** `start`: the stack, then API and worker; stops in reverse order. Resolves to the exit code. */
export async function runApp(repo: string, dataDir: string, envFile: string): Promise<number> {
  const mains = { api: 'services/api/dist/main.js', worker: 'services/worker/dist/main.js', admin: 'services/api/dist/cli/admin.js' };
  for (const main of Object.values(mains)) {
    if (!fs.existsSync(path.join(repo, main))) throw new StackError(`${main} not found: run \`npm run build\` first`);
  }
  const port = portFromEnv('PORT', 3000);
  const workerPort = portFromEnv('WORKER_PORT', port + 1);
  // The API's Prometheus endpoint has a port of its own (never the API's): the configuration's default.
  const metricsPort = portFromEnv('METRICS_PORT', 9464);
  await assertPortFree(port, 'the API (set PORT)');
  await assertPortFree(workerPort, 'the worker health endpoint (set WORKER_PORT)');
  await assertPortFree(metricsPort, 'the API metrics endpoint (set METRICS_PORT)');

  let received: NodeJS.Signals | undefined;
  // The waits for servers have no fixed end (progress.ts): a signal ends them.
  const starting = new AbortController();
  const signal = onceSignal().then((sig): Outcome => {
    received = sig;
    starting.abort(new StackError(`${sig} while starting`));
    return { kind: 'signal', signal: sig };
  });
  const release = keepAlive();
  let stack: Awaited<ReturnType<typeof startStack>>;
  try {
    stack = await startStack({ dataDir, signal: starting.signal });
  } catch (err) {
    if (received) return 0;
    throw err;
  } finally {
    release();
  }
  if (received) {
    await stack.stop();
    return 0;
  }
  const releaseApps = keepAlive();
  const written = writeEnvFile(envFile, stack.env);
  const env = { ...process.env, ...stack.env, PORT: String(port), WORKER_PORT: String(workerPort), METRICS_PORT: String(metricsPort) };
  const migrateFailed = await runMigrate(path.join(repo, mains.admin), repo, env, signal);
  if (migrateFailed || received) {
    await stack.stop();
    written.remove();
    releaseApps();
    if (migrateFailed) throw new StackError(migrateFailed);
    return 0;
  }
  const apps = [startApp('api', path.join(repo, mains.api), repo, env), startApp('worker', path.join(repo, mains.worker), repo, env)];
  const shutdown = async (): Promise<void> => {
    await Promise.all(apps.map((a) => stopApp(a)));
    await stack.stop();
    written.remove();
    releaseApps();
  };
  const crashed = Promise.race(
    apps.map((a) => a.exited.then((how): Outcome => ({ kind: 'crash', why: `${a.name} exited unexpectedly (${how})` }))),
  );

  let outcome: Outcome;
  const waiting = new AbortController();
  try {
    const ready = waitApiReady(port, { log: stderrLog, signal: waiting.signal }).then((): Outcome => ({ kind: 'ready' }));
    // Aborted below once a signal or a crash has won: that rejection is nobody's business.
    void ready.catch(() => undefined);
    outcome = await Promise.race([ready, signal, crashed]);
  } catch (err) {
    await shutdown();
    throw err;
  } finally {
    waiting.abort();
  }
  if (outcome.kind === 'ready') {
    process.stdout.write(`Entia API: http://127.0.0.1:${port}\n`);
    outcome = await Promise.race([signal, crashed]);
  }
  if (outcome.kind === 'crash') {
    stderrLog(`${outcome.why}; stopping everything`);
    await shutdown();
    return 1;
  }
  stderrLog(`${received}: stopping API and worker, then the stack`);
  await shutdown();
  return 0;
}
