export { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BackupError, DATA_FILES, MANIFEST_FILE, OBJECTS_DIR, isSafeObjectName, parseManifest, type BackupManifest, type DataFile, type FileSummary, type ObjectEntry } from './format';
export { TENANT_FILES, dumpDatabase, type DumpOptions } from './dump';
export {
  assertNothingStored,
  dropRestored,
  exportedEntityIds,
  exportedObjects,
  exportedRecord,
  restoreCredentials,
  restoreDocuments,
  restorePending,
  type ExportDirectory,
  type RestoreOptions,
  type RestoredCredentials,
  type RestoredDocuments,
} from './restore';
export { objectPath, verifyExport, type VerifiedExport } from './verify';
