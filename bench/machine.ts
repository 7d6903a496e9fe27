import type { Store } from '@entia/store';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import type { Machine } from './results';

/**
 * FerretDB does not say which handler it runs; its explain does: SQLite's query plan is a list of
 * lines, PostgreSQL's an EXPLAIN (FORMAT JSON) tree.
 */
async function ferretDbHandler(store: Store, db: string): Promise<string> {
  const plan = await store.client
    .db(db)
    .command({ explain: { find: 'entity', filter: {} } })
    .then((explained) => (explained.queryPlanner as { Plan?: unknown } | undefined)?.Plan)
    .catch(() => undefined);
  if (Array.isArray(plan)) return 'SQLite';
  return plan === undefined ? 'unknown' : 'PostgreSQL';
}

/** The machine and database engine a benchmark ran on (`db`: its seeded database), for its report. */
export async function machine(store: Store, db: string): Promise<Machine> {
  const info = await store.client.db('admin').command({ buildInfo: 1 });
  const ferret = typeof info.ferretdbVersion === 'string' ? info.ferretdbVersion : undefined;
  const handler = ferret ? await ferretDbHandler(store, db) : undefined;
  return {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${process.platform} ${release()}`,
    engine: ferret ? `FerretDB ${ferret} (${handler} handler)` : `MongoDB ${String(info.version)}`,
    serverVersion: String(info.version),
    loadAverage: { start: loadavg().map((l) => Math.round(l * 100) / 100) },
  };
}

