import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { freePort, startFerretDb, stopWithParent, type ManagedServer } from '@entia/stack';
import { SlowEngineRelay } from './slow-engine-relay';

// Issue 31, done when: `npm start` on a machine where the engine takes seconds to answer comes up
// every time. `node tools/stack/dist/cli.js start` (what `npm start` runs after its build), 20 times
// in a row, with MONGODB_URL pointing at a relay that makes a real FerretDB sleep whenever no client
// is connected and take WAKE_MS to answer the next one. Each client process meets it asleep: the
// stack's own ping waits through it, and `entia-admin migrate`, the API and the worker fail their
// first connect (WAKE_MS is longer than DEPENDENCY_TIMEOUT_MS, 1 s) and must try again. Redis and S3
// are the test stack's. Each run must print `Entia API: …` and, after SIGINT, exit 0. Times are
// printed with ENTIA_FAULT_TIMINGS (20 runs in about 140 s on 2 cores).

const RUNS = 20;
const WAKE_MS = 1500;
// Between one client's last connection and the next one's first there is at least a Node start.
const IDLE_MS = 100;
// Only against a hang: before the store retried its first connect, the API never became ready.
const RUN_LIMIT_MS = 90_000;

jest.setTimeout(RUNS * RUN_LIMIT_MS);

const repo = path.join(__dirname, '..', '..', '..');
const cli = path.join(repo, 'tools', 'stack', 'dist', 'cli.js');

interface Run {
  /** What the run showed: `up, exit 0`, or what went wrong instead. */
  outcome: string;
  readyMs: number;
  totalMs: number;
  output: string;
}

/** One `start`: until it prints its URL (or gives up, or RUN_LIMIT_MS passes), then SIGINT and its exit. */
async function startOnce(env: NodeJS.ProcessEnv, port: number): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, [cli, 'start'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  stopWithParent(child);
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit ${code}`)));
  const up = new Promise<boolean>((resolve) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      if (line === `Entia API: http://127.0.0.1:${port}`) resolve(true);
    });
  });
  let limit: NodeJS.Timeout | undefined;
  const ready = await Promise.race([
    up,
    exited.then(() => false),
    new Promise<boolean>((resolve) => (limit = setTimeout(resolve, RUN_LIMIT_MS, false))),
  ]);
  clearTimeout(limit);
  const readyMs = Date.now() - started;
  child.kill('SIGINT');
  const how = await exited;
  return { outcome: ready ? `up, ${how}` : `not up (${how})`, readyMs, totalMs: Date.now() - started, output };
}

describe('npm start against an engine slow to its first answer', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-start-slow-'));
  let engine: ManagedServer;
  let relay: SlowEngineRelay;

  beforeAll(async () => {
    engine = await startFerretDb({ dir: path.join(dir, 'ferretdb'), log: () => undefined });
    relay = await SlowEngineRelay.start({ host: '127.0.0.1', port: engine.port }, { wakeMs: WAKE_MS, idleMs: IDLE_MS });
  });

  afterAll(async () => {
    await relay?.close();
    await engine?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test(`comes up ${RUNS} times in ${RUNS}, and stops cleanly each time`, async () => {
    const { REDIS_URL, S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY } = process.env;
    if (!REDIS_URL || !S3_ENDPOINT) throw new Error('REDIS_URL and S3_ENDPOINT come from the test stack: run this through `npm test`');
    const own = randomBytes(4).toString('hex');
    // As `npm start` runs it: not under jest's NODE_ENV=test.
    const { NODE_ENV: _jests, ...base } = process.env;
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      const [port, workerPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
      const run = await startOnce(
        {
          ...base,
          MONGODB_URL: relay.url,
          REDIS_URL,
          S3_ENDPOINT,
          S3_ACCESS_KEY,
          S3_SECRET_KEY,
          // Queues, the control database and the bucket of this test's own, whatever else uses the test stack.
          REDIS_PREFIX: `slow${own}`,
          MONGODB_CONTROL_DB: `slow_${own}`,
          S3_BUCKET: `slow-${own}`,
          PORT: String(port),
          WORKER_PORT: String(workerPort),
          METRICS_PORT: String(metricsPort),
          ENTIA_STACK_DIR: fs.mkdtempSync(path.join(dir, 'state-')),
        },
        port,
      );
      runs.push(run);
      if (run.outcome !== 'up, exit 0') {
        throw new Error(`run ${i + 1} of ${RUNS}: ${run.outcome} after ${run.readyMs} ms; its output:\n${run.output.split('\n').slice(-60).join('\n')}`);
      }
    }
    if (process.env.ENTIA_FAULT_TIMINGS) {
      const total = runs.reduce((sum, r) => sum + r.totalMs, 0);
      const ready = runs.map((r) => r.readyMs).sort((a, b) => a - b);
      process.stderr.write(
        `\nnpm start through a sleeping engine (wake ${WAKE_MS} ms): ${RUNS} runs in ${(total / 1000).toFixed(1)} s; ` +
          `to "Entia API" median ${ready[RUNS >> 1]} ms, slowest ${ready[RUNS - 1]} ms; the engine woken ${relay.wakes} times, ` +
          `clients gave up on it ${relay.abandoned} times\n`,
      );
    }
    expect(runs.map((r) => r.outcome)).toEqual(Array(RUNS).fill('up, exit 0'));
    // The engine really was slow to each run's clients: at least one per run gave up on a first try.
    expect(relay.abandoned).toBeGreaterThanOrEqual(RUNS);
  });
});
