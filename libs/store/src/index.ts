export { Store, type StoreOptions } from './connection';
export { CONTROL_COLLECTIONS, TENANT_COLLECTIONS } from './collections';
export { MongoConnection, loggedConnection, type ConnectionEvents, type ConnectionState } from './mongo-connection';
export { COUNTED_COMMANDS, MONGODB_COMMANDS_METRIC, commandKind, commandLabel, countCommands, type CommandKind } from './commands';
export { ControlDb, type DatabaseRecord, type KeyRecord, type PasskeyKey } from './control';
export { DatabaseRecords } from './records';
export { EntityCollection, type NewEntity, type Next, type Stored, type Unsettled, type Versioned } from './entities';
export {
  API_KEY_INDEXES,
  ENTITY_INDEXES,
  HISTORY_INDEXES,
  PENDING_INDEXES,
  SORT_INDEX_CAP,
  SORT_INDEX_PREFIX,
  IndexBuildError,
  ensureIndexes,
  servesSort,
  sortIndexOf,
  type IndexDefinition,
} from './indexes';
export { SortIndexes, type SortIndexState, type SortIndexWarn } from './sort-indexes';
export { DERIVED_FIELDS, fromDocument, toDocument, type EntityDocument } from './codec';
export { newId } from './ids';
export { compileAfter, compileFilter, compileMatch, compilePage, compileProjection, compileSort } from './compile';
export { queryFailure } from './query-errors';
export { EntityWriter, WriteBusy, type HeldLease, type Leases, type Plan } from './writer';
export { PendingWork, pendingSince, type MarkFlags, type PendingMark } from './pending';
export { historyRowsIn, type OutboxEntry } from './outbox';
export { RedisLeases, type LeaseOptions, type LeaseRedis } from './leases';
export { HistoryCollection, type HistoryRow } from './history';
export { DatabaseUsage } from './usage';
export { CounterBusy, Counters } from './counters';
export { WEBHOOK_DELIVERY_INDEXES, WebhookDeliveries, type DeliveryStatus, type WebhookDelivery } from './webhook-deliveries';
export {
  MIGRATIONS,
  MigrationBusy,
  SCHEMA_VERSION,
  SchemaRecords,
  migrate,
  valueTypeMigration,
  withoutValueTypes,
  type MigrateEvent,
  type MigrateOptions,
  type MigrateOutcome,
  type Migration,
  type MigrationContext,
  type StoredSchema,
} from './migrations';
export * from './backup';
