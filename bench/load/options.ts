import { databaseOption, readArgs } from '../args';

/** What one run of the load benchmark does; every option also comes from a `BENCH_*` variable. */
export interface LoadOptions {
  size: number;
  db: string;
  reuse: boolean;
  keep: boolean;
  /** Concurrent connections (HTTP) or loops (driver) of every scenario. */
  connections: number;
  /** Seconds each timed scenario runs. */
  duration: number;
  /** Requests per list or `q` query (they may take long on engines that scan). */
  listRequests: number;
  /** Children written in the formula-cascade burst. */
  children: number;
  /**
   * The services' MONGODB_TIMEOUT_MS. Far above the service default (5 s): an engine that scans
   * (FerretDB at 100 000 entities) needs minutes for a list query, and the benchmark reports how
   * long, rather than a timeout.
   */
  timeoutMs: number;
  /**
   * The longest wait, after each scenario (and after seeding), for the API to answer every request
   * sent and the worker to finish the work left: what they did meanwhile counts with the scenario.
   */
  settleMs: number;
  outDir: string;
  /**
   * Only these scenarios (ids as in the report, `cascade` for the formula cascade); all when
   * undefined. A partial run is for profiling one path, not for the committed report.
   */
  only?: string[];
  /** Where the API and the worker write V8 CPU profiles (`--cpu-prof`) when they stop. */
  profileDir?: string;
  /**
   * Where the API and the worker append a trace of every MongoDB command with the code that sent
   * it (`command-trace.ts`); the report then shows, per scenario, where its commands come from.
   */
  traceDir?: string;
}

const USAGE = `usage: npm run bench -- [--size 100000] [--db bench_x] [--reuse] [--keep] [--connections 10]
  [--duration 10] [--list-requests 20] [--children 1000] [--timeout-ms 600000] [--settle-ms 60000] [--out bench/results]
  [--only ceiling-http,get-cached,...] [--profile <dir>] [--trace <dir>]
Without MONGODB_URL (e.g. from .stack/env) an ephemeral local stack is started. Every option may also be
set as BENCH_<NAME> (BENCH_SIZE, BENCH_CONNECTIONS, ...).`;


const OPTIONS = {
  size: 'string',
  db: 'string',
  reuse: 'boolean',
  keep: 'boolean',
  connections: 'string',
  duration: 'string',
  'list-requests': 'string',
  children: 'string',
  'timeout-ms': 'string',
  'settle-ms': 'string',
  out: 'string',
  only: 'string',
  profile: 'string',
  trace: 'string',
} as const;

export function readLoadOptions(argv = process.argv.slice(2), env = process.env): LoadOptions {
  const args = readArgs(argv, env, OPTIONS, USAGE);
  const reuse = args.flag('reuse');
  if (reuse && args.text('db') === undefined) throw new Error('--reuse needs --db <name>');
  const db = databaseOption(args, env.MONGODB_CONTROL_DB || 'entia');
  const only = args.text('only');
  const profileDir = args.text('profile');
  const traceDir = args.text('trace');
  return {
    size: args.integer('size', 100_000, 100),
    db,
    reuse,
    keep: args.flag('keep'),
    connections: args.integer('connections', 10, 1),
    duration: args.integer('duration', 10, 1),
    listRequests: args.integer('list-requests', 20, 1),
    children: args.integer('children', 1000, 1),
    timeoutMs: args.integer('timeout-ms', 600_000, 100),
    settleMs: args.integer('settle-ms', 60_000, 0),
    outDir: args.text('out') ?? 'bench/results',
    ...(only ? { only: only.split(',').map((id) => id.trim()) } : {}),
    ...(profileDir ? { profileDir } : {}),
    ...(traceDir ? { traceDir } : {}),
  };
}
