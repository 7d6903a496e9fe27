import type { Store } from '@entia/store';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import type { Machine } from './results';

/** The machine and database engine a benchmark ran on, for its report. */
export async function machine(store: Store): Promise<Machine> {
  const info = await store.client.db('admin').command({ buildInfo: 1 });
  const ferret = typeof info.ferretdbVersion === 'string' ? info.ferretdbVersion : undefined;
  return {
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    freeMemoryGiB: Math.round((freemem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${process.platform} ${release()}`,
    engine: ferret ? `FerretDB ${ferret} (SQLite handler, as started by the project's stack)` : `MongoDB ${String(info.version)}`,
    serverVersion: String(info.version),
    loadAverage: { start: loadavg().map((l) => Math.round(l * 100) / 100) },
  };
}

