import { databaseOption, integer, readArgs } from './args';

/** What one run of the query benchmark does; every option also comes from a `BENCH_*` variable. */
export interface BenchOptions {
  mongodbUrl: string;
  controlDb: string;
  size: number;
  db: string;
  /** The database already holds a benchmark data set (from an earlier `--keep` run): skip seeding. */
  reuse: boolean;
  /** Leave the database in place at the end (default: drop it). */
  keep: boolean;
  /** Seed (implies --keep) and stop: a later run with --reuse measures. */
  seedOnly: boolean;
  /** Drop a database left by --keep / --seed-only and stop. */
  drop: boolean;
  iterations: number;
  warmup: number;
  /** Iterations of the full API path (definitions lookup + list); 0 skips it. */
  apiIterations: number;
  /** Stop measuring one query after this many seconds (at least `minIterations`); 0 = no limit. */
  budgetSeconds: number;
  minIterations: number;
  batch: number;
  seed: number;
  caller: 'owner' | 'reader' | 'anonymous';
  /** `maxTimeMS` of the queries: the service's own limit (MONGODB_TIMEOUT_MS) is usually far lower. */
  timeoutMs: number;
  serviceTimeoutMs: number;
  outDir: string;
}

const USAGE = `usage: npm run bench:query -- [--size 100000] [--db bench_x] [--reuse] [--keep] [--seed-only] [--drop]
  [--iterations 50] [--warmup 5] [--api-iterations 10] [--budget 0] [--min-iterations 10]
  [--batch 1000] [--seed 42] [--caller owner|reader|anonymous] [--timeout-ms 600000] [--out bench/results]
--seed-only seeds and keeps the database; --reuse measures a kept one (and drops it unless --keep);
--drop removes a kept one. Every option may also be set as BENCH_<NAME> (BENCH_SIZE, BENCH_DB, ...). MONGODB_URL is required
(source .stack/env); MONGODB_CONTROL_DB defaults to "entia".`;


const OPTIONS = {
  size: 'string',
  db: 'string',
  reuse: 'boolean',
  keep: 'boolean',
  'seed-only': 'boolean',
  drop: 'boolean',
  iterations: 'string',
  warmup: 'string',
  'api-iterations': 'string',
  budget: 'string',
  'min-iterations': 'string',
  batch: 'string',
  seed: 'string',
  caller: 'string',
  'timeout-ms': 'string',
  out: 'string',
} as const;

export function readOptions(argv = process.argv.slice(2), env = process.env): BenchOptions {
  const args = readArgs(argv, env, OPTIONS, USAGE);
  const mongodbUrl = env.MONGODB_URL;
  if (!mongodbUrl) throw new Error('MONGODB_URL is not set: run `set -a && . ./.stack/env && set +a` first (or start a stack with `npm run stack -- up`)');
  const caller = args.text('caller') ?? 'owner';
  if (caller !== 'owner' && caller !== 'reader' && caller !== 'anonymous') throw new Error('--caller must be owner, reader or anonymous');
  const controlDb = env.MONGODB_CONTROL_DB || 'entia';
  const db = databaseOption(args, controlDb);

  return {
    mongodbUrl,
    controlDb,
    size: args.integer('size', 100_000, 30),
    db,
    reuse: args.flag('reuse'),
    keep: args.flag('keep') || args.flag('seed-only'),
    seedOnly: args.flag('seed-only'),
    drop: args.flag('drop'),
    iterations: args.integer('iterations', 50, 1),
    warmup: args.integer('warmup', 5, 0),
    apiIterations: args.integer('api-iterations', 10, 0),
    budgetSeconds: args.integer('budget', 0, 0),
    minIterations: args.integer('min-iterations', 10, 1),
    batch: args.integer('batch', 1000, 1),
    seed: args.integer('seed', 42, 0),
    caller,
    timeoutMs: args.integer('timeout-ms', 600_000, 100),
    serviceTimeoutMs: integer('MONGODB_TIMEOUT_MS', env.MONGODB_TIMEOUT_MS, 5000, 100),
    outDir: args.text('out') ?? 'bench/results',
  };
}
