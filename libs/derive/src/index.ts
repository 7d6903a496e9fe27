export type { DeriveDeps, FailureLog } from './deps';
export { SchemaCache, typeNameOf, type Schema } from './schema';
export { COALESCE_MS, MAX_CASCADE_DEPTH, dependentIds, needsOwnRefresh, needsSettling, scheduleSettle } from './schedule';
export { settleEntity, type Settled } from './settle';
