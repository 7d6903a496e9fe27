import { isDatabaseName } from '@entia/domain';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { integer } from './args';

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


export function readOptions(argv = process.argv.slice(2), env = process.env): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      size: { type: 'string' },
      db: { type: 'string' },
      reuse: { type: 'boolean' },
      keep: { type: 'boolean' },
      'seed-only': { type: 'boolean' },
      drop: { type: 'boolean' },
      iterations: { type: 'string' },
      warmup: { type: 'string' },
      'api-iterations': { type: 'string' },
      budget: { type: 'string' },
      'min-iterations': { type: 'string' },
      batch: { type: 'string' },
      seed: { type: 'string' },
      caller: { type: 'string' },
      'timeout-ms': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const pick = (name: string, envName: string) => (values as Record<string, string | undefined>)[name] ?? env[envName];
  const flag = (name: string, envName: string) => (values as Record<string, boolean | undefined>)[name] ?? ['1', 'true', 'yes'].includes(env[envName] ?? '');

  const mongodbUrl = env.MONGODB_URL;
  if (!mongodbUrl) throw new Error('MONGODB_URL is not set: run `set -a && . ./.stack/env && set +a` first (or start a stack with `npm run stack -- up`)');
  const caller = pick('caller', 'BENCH_CALLER') ?? 'owner';
  if (caller !== 'owner' && caller !== 'reader' && caller !== 'anonymous') throw new Error('--caller must be owner, reader or anonymous');
  const db = pick('db', 'BENCH_DB') ?? `bench_${randomBytes(4).toString('hex')}`;
  const controlDb = env.MONGODB_CONTROL_DB || 'entia';
  if (!isDatabaseName(db, controlDb)) throw new Error(`--db "${db}" is not a valid database name`);

  return {
    mongodbUrl,
    controlDb,
    size: integer('size', pick('size', 'BENCH_SIZE'), 100_000, 30),
    db,
    reuse: flag('reuse', 'BENCH_REUSE'),
    keep: flag('keep', 'BENCH_KEEP') || flag('seed-only', 'BENCH_SEED_ONLY'),
    seedOnly: flag('seed-only', 'BENCH_SEED_ONLY'),
    drop: flag('drop', 'BENCH_DROP'),
    iterations: integer('iterations', pick('iterations', 'BENCH_ITERATIONS'), 50, 1),
    warmup: integer('warmup', pick('warmup', 'BENCH_WARMUP'), 5, 0),
    apiIterations: integer('api-iterations', pick('api-iterations', 'BENCH_API_ITERATIONS'), 10, 0),
    budgetSeconds: integer('budget', pick('budget', 'BENCH_BUDGET'), 0, 0),
    minIterations: integer('min-iterations', pick('min-iterations', 'BENCH_MIN_ITERATIONS'), 10, 1),
    batch: integer('batch', pick('batch', 'BENCH_BATCH'), 1000, 1),
    seed: integer('seed', pick('seed', 'BENCH_SEED'), 42, 0),
    caller,
    timeoutMs: integer('timeout-ms', pick('timeout-ms', 'BENCH_TIMEOUT_MS'), 600_000, 100),
    serviceTimeoutMs: integer('MONGODB_TIMEOUT_MS', env.MONGODB_TIMEOUT_MS, 5000, 100),
    outDir: pick('out', 'BENCH_OUT') ?? 'bench/results',
  };
}
