import type { Store } from '../connection';
import type { Leases } from '../writer';
import { SchemaRecords } from './records';
import type { Migration } from './types';

/** Another `migrate` holds the lock. */
export class MigrationBusy extends Error {
  override readonly name = 'MigrationBusy';
}

export type MigrateEvent =
  | { kind: 'start'; from: number; to: number; pending: { version: number; name: string }[] }
  | { kind: 'migration'; version: number; name: string }
  | { kind: 'progress'; version: number; database: string; message: string }
  | { kind: 'done'; version: number; name: string; ms: number };

export interface MigrateOptions {
  migrations: readonly Migration[];
  /** The leases the services' writers take (`MigrationContext.leases`). */
  leases: Leases;
  /** How long the lock outlives a run that stopped renewing it (crashed). */
  lockTtlMs?: number;
  /** Named in the lock, for a second run to say who holds it. */
  holder?: string;
  /**
   * Stops the run at its next checkpoint (between batches, or documents): the migration under way
   * is left unrecorded, to be run again, and the lock is given back, so the next run need not wait
   * for it to expire (a Job's pod is sent SIGTERM when its node drains).
   */
  signal?: AbortSignal;
  onEvent?(event: MigrateEvent): void;
}

export interface MigrateOutcome {
  from: number;
  to: number;
  applied: number[];
}

/**
 * Applies the migrations newer than the recorded version, in order, under the lock; the version
 * is recorded after each one, so a failure leaves the schema at the last migration that finished
 * and a new run resumes from there. A stored version newer than the code's is left alone.
 */
export async function migrate(store: Store, options: MigrateOptions): Promise<MigrateOutcome> {
  const { migrations, leases, signal = new AbortController().signal, lockTtlMs = 5 * 60_000, holder = 'entia-admin migrate', onEvent = () => undefined } = options;
  const records = new SchemaRecords(store.control);
  const lock = await records.lock(lockTtlMs, holder);
  if ('heldBy' in lock) throw new MigrationBusy(`another migration is running (${lock.heldBy}, since ${lock.since.toISOString()}); try again when it has finished`);
  try {
    const stored = await records.read();
    const from = stored.version ?? 0;
    const pending = migrations.filter((migration) => migration.version > from);
    const to = pending.length > 0 ? pending[pending.length - 1]!.version : from;
    onEvent({ kind: 'start', from, to, pending: pending.map(({ version, name }) => ({ version, name })) });
    const applied: number[] = [];
    for (const migration of pending) {
      signal.throwIfAborted();
      // Registered databases read per migration: one created meanwhile is born at the current version.
      const databases = (await store.registry.allDatabases()).filter((record) => !record.deleting).map((record) => record._id);
      const started = Date.now();
      onEvent({ kind: 'migration', version: migration.version, name: migration.name });
      await migration.up({
        store,
        databases,
        keepLock: async () => {
          signal.throwIfAborted();
          await lock.keep();
        },
        signal,
        leases,
        progress: ({ database, message }) => onEvent({ kind: 'progress', version: migration.version, database, message }),
      });
      await lock.keep();
      await records.record(migration.version, migration.name);
      applied.push(migration.version);
      onEvent({ kind: 'done', version: migration.version, name: migration.name, ms: Date.now() - started });
    }
    return { from, to, applied };
  } finally {
    await lock.release().catch(() => undefined);
  }
}
