export { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BackupError, DATA_FILES, MANIFEST_FILE, OBJECTS_DIR, isSafeObjectName, parseManifest, type BackupManifest, type ObjectEntry } from './format';
export { exportDatabase, type BackupDeps, type ExportOptions } from './export';
export { importDatabase, type ImportDeps, type ImportOptions, type ImportSummary } from './import';
export { verifyExport, type VerifiedExport } from './verify';
export type { BackupObjects } from './objects';
