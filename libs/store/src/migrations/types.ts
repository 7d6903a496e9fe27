import type { Store } from '../connection';
import type { Leases } from '../writer';

/** What a migration tells while it runs: one line per step, per database where it works per database. */
export interface MigrationProgress {
  (event: { database: string; message: string }): void;
}

/** What a migration works on: the store, and the tenant databases registered when the run began. */
export interface MigrationContext {
  store: Store;
  databases: readonly string[];
  progress: MigrationProgress;
  /**
   * Called between batches of a long migration: keeps the run's lock (it throws when the lock was
   * lost, or when the run was asked to stop: `MigrateOptions.signal`).
   */
  keepLock(): Promise<void>;
  /** Aborted when the run is asked to stop (SIGTERM): a long step checks it between documents. */
  signal: AbortSignal;
  /**
   * The writers' per-entity leases (`<db>/<id>`): a migration that rewrites an entity document holds
   * its lease, so a write of an API process still serving meanwhile is never undone (FerretDB's
   * compare-and-set is not atomic).
   */
  leases: Leases;
}

/**
 * One step of the schema. `up` must be idempotent: a run cut short (a crash, a lost lock) is run
 * again from the start of that migration, over databases it has already done.
 */
export interface Migration {
  version: number;
  name: string;
  up(context: MigrationContext): Promise<void>;
}
