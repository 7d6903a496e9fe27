#!/usr/bin/env node
import * as path from 'node:path';
import { runAdmin } from './admin';
import { runApp } from './app';
import { ensureBinary, FERRETDB, MAILPIT, MINIO } from './build';
import { writeEnvFile } from './envfile';
import { StackError, errorMessage } from './errors';
import { seconds, stderrLog } from './log';
import { ensureNode, pinnedNodeVersion } from './node-runtime';
import { runOnPinnedNode, stopWhenOrphaned } from './reexec';
import { keepAlive, onceSignal } from './signals';
import { startStack } from './stack';
import { runTests } from './tests';

// dist/cli.js lives in tools/stack/dist: the repo root is three levels up.
const REPO = path.resolve(__dirname, '..', '..', '..');
// ENTIA_STACK_DIR moves the persistent state of `up`/`start` (a second `start` beside a running one).
const STATE_DIR = process.env.ENTIA_STACK_DIR ? path.resolve(process.env.ENTIA_STACK_DIR) : path.join(REPO, '.stack');
const DATA_DIR = path.join(STATE_DIR, 'data');
const ENV_FILE = path.join(STATE_DIR, 'env');

const USAGE = `usage: entia-stack <command>
  up      start MongoDB (or FerretDB), Redis and MinIO with data in .stack/data; print env; Ctrl-C stops
  start   up + the API and worker (services/*/dist/main.js); PORT (3000), WORKER_PORT (PORT+1), METRICS_PORT (9464)
  test    jest against an ephemeral stack (with Mailpit for e-mail); extra args go to jest; last line: "<N> passed, <N> failed"
  build   build or check the cached FerretDB, MinIO and Mailpit binaries and the pinned Node (.node-version)
  admin   entia-admin (npm run admin) with .stack/env's settings when the local stack runs
start, test and admin run on the pinned Node: fetched once from the npm registry when the machine's is another major`;

async function up(): Promise<number> {
  const signal = onceSignal();
  // The waits for servers have no fixed end (progress.ts): a signal ends them.
  const starting = new AbortController();
  void signal.then((sig) => starting.abort(new StackError(`${sig} while starting`)));
  let stack: Awaited<ReturnType<typeof startStack>>;
  try {
    stack = await startStack({ dataDir: DATA_DIR, signal: starting.signal });
  } catch (err) {
    if (starting.signal.aborted) return 0;
    throw err;
  }
  const envFile = writeEnvFile(ENV_FILE, stack.env);
  process.stdout.write(`${envFile.lines.join('\n')}\n`);
  stderrLog(`up; env also in ${path.relative(REPO, ENV_FILE)}; Ctrl-C to stop`);
  const release = keepAlive();
  // A server that dies on its own leaves a half stack; say so and stop rather than linger.
  const died = new Promise<string>((resolve) => {
    const timer = setInterval(() => {
      const dead = stack.servers.find((s) => s.pid === undefined);
      if (dead) {
        clearInterval(timer);
        resolve(`${dead.name} exited unexpectedly (log: ${dead.logFile})`);
      }
    }, 1000);
    void signal.then(() => clearInterval(timer));
  });
  const outcome = await Promise.race([signal.then((s) => ({ signal: s })), died.then((why) => ({ why }))]);
  stderrLog('signal' in outcome ? `${outcome.signal}: stopping` : `${outcome.why}; stopping`);
  await stack.stop();
  envFile.remove();
  release();
  return 'signal' in outcome ? 0 : 1;
}

async function build(): Promise<number> {
  const t = Date.now();
  const node = await ensureNode(pinnedNodeVersion(REPO), process.env, stderrLog);
  stderrLog(`Node ${node.version}: ${node.fetched ? 'fetched' : 'cached'} (${node.path})`);
  for (const spec of [FERRETDB, MINIO, MAILPIT]) {
    const r = await ensureBinary(spec, process.env, stderrLog);
    stderrLog(`${spec.label}: ${r.built ? 'built' : 'cached'} in ${(r.ms / 1000).toFixed(1)}s (${r.path})`);
  }
  stderrLog(`build done in ${seconds(t)}`);
  return 0;
}

function printError(err: unknown): void {
  const lines = err instanceof StackError ? [err.message, ...err.details] : [errorMessage(err).split('\n')[0]];
  process.stderr.write(`[stack] error: ${lines.join('\n')}\n`);
  if (!(err instanceof StackError) && process.env.ENTIA_STACK_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Not `up`: a stack started by hand in the background outlives the shell that started it.
  if (command === 'start' || command === 'test') stopWhenOrphaned();
  switch (command) {
    case 'up':
      return up();
    case 'start':
      return (await runOnPinnedNode(REPO, argv, stderrLog)) ?? runApp(REPO, DATA_DIR, ENV_FILE);
    case 'admin':
      return (await runOnPinnedNode(REPO, argv, stderrLog)) ?? runAdmin(REPO, ENV_FILE, rest);
    case 'build':
      return build();
    case 'test': {
      let result: { summary: string; code: number };
      try {
        // Re-executed, the child prints the summary line; we only pass its exit code on.
        const code = await runOnPinnedNode(REPO, argv, stderrLog);
        if (code !== undefined) return code;
        result = await runTests(REPO, rest);
      } catch (err) {
        printError(err);
        result = { summary: '0 passed, 1 failed', code: 1 };
      }
      process.stdout.write(`${result.summary}\n`);
      return result.code;
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`[stack] error: unknown command "${command}"\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    printError(err);
    process.exitCode = 1;
  },
);
