export type { DeriveDeps } from './deps';
export { SchemaCache, typeNameOf, type Schema } from './schema';
export { COALESCE_MS, MAX_CASCADE_DEPTH, dependentIds, needsOwnRefresh, scheduleRefresh } from './schedule';
export { refreshEntity, type Refreshed } from './refresh';
export { describeChange } from './change';
