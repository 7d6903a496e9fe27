import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { isDatabaseName } from '@entia/domain';

/** A benchmark's options: each `--name`, or else its `BENCH_NAME` variable (`--timeout-ms`: `BENCH_TIMEOUT_MS`). */
export interface Args {
  text(name: string): string | undefined;
  flag(name: string): boolean;
  /** A whole number of at least `min`; `fallback` when unset. */
  integer(name: string, fallback: number, min: number): number;
}

const variableOf = (name: string) => `BENCH_${name.toUpperCase().replace(/-/g, '_')}`;

/** Reads the command line against `options` (name → kind); `--help` prints `usage` and exits. */
export function readArgs(argv: string[], env: NodeJS.ProcessEnv, options: Record<string, 'string' | 'boolean'>, usage: string): Args {
  const { values } = parseArgs({
    args: argv,
    options: { ...Object.fromEntries(Object.entries(options).map(([name, type]) => [name, { type }])), help: { type: 'boolean' } },
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const given = values as Record<string, string | boolean | undefined>;
  const text = (name: string) => (given[name] as string | undefined) ?? env[variableOf(name)];
  return {
    text,
    flag: (name) => (given[name] as boolean | undefined) ?? ['1', 'true', 'yes'].includes(env[variableOf(name)] ?? ''),
    integer: (name, fallback, min) => integer(name, text(name), fallback, min),
  };
}

/** The database of a run: `--db`, or a fresh name; refused when it cannot name a tenant database. */
export function databaseOption(args: Args, controlDb: string): string {
  const db = args.text('db') ?? `bench_${randomBytes(4).toString('hex')}`;
  if (!isDatabaseName(db, controlDb)) throw new Error(`--db "${db}" is not a valid database name`);
  return db;
}

/** A whole-number option (from `--name` or its `BENCH_*` variable), `fallback` when unset. */
export function integer(name: string, text: string | undefined, fallback: number, min: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be a whole number >= ${min} (got ${JSON.stringify(text)})`);
  return value;
}
