import { indexes } from './001-indexes';
import { valueType } from './002-value-type';
import { rederive } from './003-rederive';
import { unsettledIndex } from './004-unsettled-index';
import type { Migration } from './types';

/** Every migration, in order; a new one is appended with the next version (one file each). */
export const MIGRATIONS: readonly Migration[] = [indexes, valueType, rederive, unsettledIndex];

/** The schema version this code needs: the last migration's. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export type { Migration, MigrationContext, MigrationProgress } from './types';
export { valueTypeMigration, withoutValueTypes } from './002-value-type';
export { SchemaRecords, type SchemaLock, type StoredSchema } from './records';
export { MigrationBusy, migrate, type MigrateEvent, type MigrateOptions, type MigrateOutcome } from './runner';
