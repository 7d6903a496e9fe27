import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { integer } from '../args';

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
  outDir: string;
  /**
   * Only these scenarios (ids as in the report, `cascade` for the formula cascade); all when
   * undefined. A partial run is for profiling one path, not for the committed report.
   */
  only?: string[];
  /** Where the API and the worker write V8 CPU profiles (`--cpu-prof`) when they stop. */
  profileDir?: string;
}

const USAGE = `usage: npm run bench -- [--size 100000] [--db bench_x] [--reuse] [--keep] [--connections 10]
  [--duration 10] [--list-requests 20] [--children 1000] [--timeout-ms 600000] [--out bench/results]
  [--only ceiling-http,get-cached,...] [--profile <dir>]
Without MONGODB_URL (e.g. from .stack/env) an ephemeral local stack is started. Every option may also be
set as BENCH_<NAME> (BENCH_SIZE, BENCH_CONNECTIONS, ...).`;


export function readLoadOptions(argv = process.argv.slice(2), env = process.env): LoadOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      size: { type: 'string' },
      db: { type: 'string' },
      reuse: { type: 'boolean' },
      keep: { type: 'boolean' },
      connections: { type: 'string' },
      duration: { type: 'string' },
      'list-requests': { type: 'string' },
      children: { type: 'string' },
      'timeout-ms': { type: 'string' },
      out: { type: 'string' },
      only: { type: 'string' },
      profile: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const reuse = values.reuse ?? env.BENCH_REUSE === '1';
  const db = values.db ?? env.BENCH_DB ?? `bench_${randomBytes(4).toString('hex')}`;
  if (reuse && values.db === undefined && env.BENCH_DB === undefined) throw new Error('--reuse needs --db <name>');
  const only = values.only ?? env.BENCH_ONLY;
  const profileDir = values.profile ?? env.BENCH_PROFILE;
  return {
    size: integer('size', values.size ?? env.BENCH_SIZE, 100_000, 100),
    db,
    reuse,
    keep: values.keep ?? env.BENCH_KEEP === '1',
    connections: integer('connections', values.connections ?? env.BENCH_CONNECTIONS, 10, 1),
    duration: integer('duration', values.duration ?? env.BENCH_DURATION, 10, 1),
    listRequests: integer('list-requests', values['list-requests'] ?? env.BENCH_LIST_REQUESTS, 20, 1),
    children: integer('children', values.children ?? env.BENCH_CHILDREN, 1000, 1),
    timeoutMs: integer('timeout-ms', values['timeout-ms'] ?? env.BENCH_TIMEOUT_MS, 600_000, 100),
    outDir: values.out ?? env.BENCH_OUT ?? 'bench/results',
    ...(only ? { only: only.split(',').map((id) => id.trim()) } : {}),
    ...(profileDir ? { profileDir } : {}),
  };
}
