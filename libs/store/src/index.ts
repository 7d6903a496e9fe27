export { Store, type StoreOptions } from './connection';
export { ControlDb, type DatabaseRecord, type KeyRecord } from './control';
export { DatabaseRecords } from './records';
export { EntityCollection, type Versioned } from './entities';
export { DERIVED_FIELDS, fromDocument, toDocument, type EntityDocument } from './codec';
export { newId } from './ids';
export { compileFilter, compileProjection, compileSort } from './compile';
export { queryFailure } from './query-errors';
