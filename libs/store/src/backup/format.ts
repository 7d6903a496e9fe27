import { isDatabaseName } from '@entia/domain';

/**
 * The export format, version 1: a directory holding
 * - `manifest.json`: this module's `BackupManifest`, written last (a directory without one is an
 *   export that did not finish);
 * - one NDJSON file per kind of record (`DATA_FILES`), one MongoDB Extended JSON document a line
 *   (canonical mode: ObjectIds, dates, int/double survive exactly);
 * - `objects/<key below "<db>/">`: the bytes of every object of the database, listed with their
 *   content type, size and SHA-256 in `objects.ndjson`.
 */
export const BACKUP_FORMAT = 'entia-export';
export const BACKUP_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';
export const OBJECTS_DIR = 'objects';

/** The NDJSON files of an export, each with what it holds, in the order an export reads them. */
export const DATA_FILES = {
  /** The registry record of the database (one line). */
  database: 'database.ndjson',
  /** Its credential records from the control database (hashes only, never a key). */
  credentials: 'credentials.ndjson',
  /**
   * Its marks of derived data not settled yet (control database). Read before the entities: a mark
   * the worker settles meanwhile leaves an entity read after it that is settled, or marked.
   */
  pending: 'pending.ndjson',
  /** The stored entity documents, as they are (derived fields, outbox and tombstones included). */
  entities: 'entities.ndjson',
  /** Read after the entities: every change an exported entity holds has its row here. */
  history: 'history.ndjson',
  /** The delivery log of its webhooks (the webhooks themselves are entities). */
  deliveries: 'webhook-deliveries.ndjson',
  /** One line per object: `ObjectEntry`. */
  objects: 'objects.ndjson',
} as const;

export type DataFile = keyof typeof DATA_FILES;

/** What the manifest says of one file: how many lines, how many bytes, their SHA-256 (hex). */
export interface FileSummary {
  count: number;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  formatVersion: number;
  /** The name of the exported database. */
  db: string;
  /** The storage schema version of the code that exported it. */
  schemaVersion: number;
  /** When reading began: every write finished before it is in the export (docs/deployment.md, "Backup and restore"). */
  startedAt: string;
  /** When reading ended (the manifest is written then): a write after it is not in the export. */
  exportedAt: string;
  files: Record<DataFile, FileSummary>;
}

/** One exported object: its key below `<db>/`, and what it was stored with. */
export interface ObjectEntry {
  key: string;
  size: number;
  contentType: string;
  contentDisposition?: string;
  sha256: string;
}

/** An export that cannot be read or must not be imported; the message says which and why. */
export class BackupError extends Error {
  override readonly name = 'BackupError';
}

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * An object key below the database's prefix that is safe as a path inside the export directory:
 * segments of letters, digits, `.`, `_`, `-`, none of them `.` or `..` (Entia's own keys are
 * `<entityId>/<valueId>` and a thumbnail's `<entityId>/<valueId>.thumbnail-<size>.webp`).
 */
export function isSafeObjectName(key: string): boolean {
  if (key.length === 0 || key.length > 512) return false;
  return key.split('/').every((segment) => /^[A-Za-z0-9._-]{1,200}$/.test(segment) && segment !== '.' && segment !== '..');
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * Reads a manifest: every field of the right kind, the name a database name this service accepts,
 * and every data file listed. `codeSchemaVersion`: an export from a newer schema is refused (this
 * code does not know what its documents mean).
 */
export function parseManifest(text: string, controlDb: string, codeSchemaVersion: number): BackupManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new BackupError(`${MANIFEST_FILE} is not JSON`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BackupError(`${MANIFEST_FILE} is not an object`);
  const manifest = raw as Record<string, unknown>;
  if (manifest.format !== BACKUP_FORMAT) throw new BackupError(`${MANIFEST_FILE} is not an Entia export (format "${String(manifest.format).slice(0, 40)}")`);
  if (manifest.formatVersion !== BACKUP_FORMAT_VERSION) {
    throw new BackupError(`export format version ${String(manifest.formatVersion).slice(0, 20)} is not supported (this version reads ${BACKUP_FORMAT_VERSION})`);
  }
  if (typeof manifest.db !== 'string' || !isDatabaseName(manifest.db, controlDb)) {
    throw new BackupError(`the manifest's database name ${JSON.stringify(String(manifest.db).slice(0, 80))} is not a valid database name`);
  }
  if (!isCount(manifest.schemaVersion)) throw new BackupError('the manifest has no valid schemaVersion');
  if (manifest.schemaVersion > codeSchemaVersion) {
    throw new BackupError(`the export was made by a newer version (schema ${manifest.schemaVersion}; this version knows ${codeSchemaVersion}): import it with that version or a later one`);
  }
  for (const field of ['startedAt', 'exportedAt'] as const) {
    if (typeof manifest[field] !== 'string' || Number.isNaN(Date.parse(manifest[field]))) throw new BackupError(`the manifest has no valid ${field}`);
  }
  const files = manifest.files as Record<string, unknown> | undefined;
  if (typeof files !== 'object' || files === null) throw new BackupError('the manifest lists no files');
  for (const name of Object.keys(files)) {
    if (!Object.hasOwn(DATA_FILES, name)) throw new BackupError(`the manifest lists an unknown file "${name.slice(0, 40)}"`);
  }
  for (const name of Object.keys(DATA_FILES) as DataFile[]) {
    const summary = files[name] as Partial<FileSummary> | undefined;
    if (typeof summary !== 'object' || summary === null || !isCount(summary.count) || !isCount(summary.bytes) || typeof summary.sha256 !== 'string' || !SHA256.test(summary.sha256)) {
      throw new BackupError(`the manifest has no valid entry for ${DATA_FILES[name]}`);
    }
  }
  return manifest as unknown as BackupManifest;
}
