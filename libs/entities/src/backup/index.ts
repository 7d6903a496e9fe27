// The export format and its verification are the store's (libs/store/src/backup/): named here too, as the admin CLI knows them.
export { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BackupError, DATA_FILES, MANIFEST_FILE, OBJECTS_DIR, isSafeObjectName, parseManifest, verifyExport, type BackupManifest, type ObjectEntry, type VerifiedExport } from '@entia/store';
export { exportDatabase, type BackupDeps, type ExportOptions } from './export';
export { importDatabase, type ImportDeps, type ImportOptions, type ImportSummary } from './import';
export type { BackupObjects } from './objects';
