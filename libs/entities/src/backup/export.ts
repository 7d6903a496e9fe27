import { isDatabaseName } from '@entia/domain';
import { SCHEMA_VERSION, type Store } from '@entia/store';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Document } from 'mongodb';
import type { BackupObjects } from './objects';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  BackupError,
  DATA_FILES,
  MANIFEST_FILE,
  OBJECTS_DIR,
  isSafeObjectName,
  type BackupManifest,
  type DataFile,
  type FileSummary,
  type ObjectEntry,
} from './format';
import { writeNdjson } from './ndjson';
import { CONTROL_COLLECTIONS, REBUILT_COLLECTIONS, TENANT_COLLECTIONS } from './collections';

export interface BackupDeps {
  store: Store;
  objects: BackupObjects;
}

export interface ExportOptions {
  /** The storage schema version recorded in the manifest (default: this code's, `SCHEMA_VERSION`). */
  schemaVersion?: number;
  /** How long copying one object may take. */
  objectTimeoutMs: number;
  /** Progress and warnings for the operator, one line each. */
  report?(line: string): void;
}

/** A directory that is missing or empty: an export never mixes with another one's files. */
async function prepareDirectory(dir: string): Promise<void> {
  // Owner-only: it holds credential hashes and every file of the database.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if ((await readdir(dir)).length > 0) throw new BackupError(`${dir} is not empty: export into a new or empty directory`);
}

/**
 * Copies every object under `<db>/` into `objects/`, one stream at a time, hashing the bytes as
 * they pass, and yields the index entry of each. An object deleted between the listing and its
 * read (the worker removing a deleted value's file) is left out.
 */
async function* exportObjects(deps: BackupDeps, db: string, dir: string, options: ExportOptions): AsyncGenerator<Document> {
  const prefix = `${db}/`;
  let copied = 0;
  for await (const page of deps.objects.list(prefix)) {
    for (const listed of page) {
      const name = listed.key.slice(prefix.length);
      if (!isSafeObjectName(name)) {
        options.report?.(`warning: object ${JSON.stringify(listed.key.slice(0, 200))} is not named like an Entia object: left out`);
        continue;
      }
      const object = await deps.objects.readStream(listed.key, options.objectTimeoutMs);
      if (!object) continue;
      const path = join(dir, OBJECTS_DIR, ...name.split('/'));
      await mkdir(dirname(path), { recursive: true });
      const hash = createHash('sha256');
      let size = 0;
      await pipeline(
        object.body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            hash.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(path, { flags: 'wx' }),
      );
      const entry: ObjectEntry = {
        key: name,
        size,
        contentType: object.contentType,
        ...(object.contentDisposition ? { contentDisposition: object.contentDisposition } : {}),
        sha256: hash.digest('hex'),
      };
      copied += 1;
      if (copied % 1000 === 0) options.report?.(`objects: ${copied}`);
      yield entry;
    }
  }
}

/**
 * Exports database `db` into `dir` (see `format.ts`). Each collection is read in `_id` order
 * through a cursor and written as it arrives, so memory stays flat whatever the size. While
 * writes go on, each document is exported as it was at one moment (per-document consistency),
 * not the database at one moment; the files are read in `DATA_FILES` order (marks, entities, then
 * history, then objects), which keeps each entity coherent with its history and marks (the import
 * drops history rows newer than their entity). docs/deployment.md, "Backup and restore", says what
 * remains and what to do for an exact copy. The manifest is written last: a directory without one
 * is no export.
 */
export async function exportDatabase(deps: BackupDeps, db: string, dir: string, options: ExportOptions): Promise<BackupManifest> {
  const { store } = deps;
  if (!isDatabaseName(db, store.controlDbName)) throw new BackupError(`"${db.slice(0, 80)}" is not a valid database name`);
  const record = await store.registry.database(db);
  if (!record) throw new BackupError(`database "${db}" does not exist`);
  if (record.deleting) throw new BackupError(`database "${db}" is being deleted: there is nothing whole to export`);
  await prepareDirectory(dir);
  const startedAt = new Date().toISOString();
  await mkdir(join(dir, OBJECTS_DIR));

  const tenant = store.database(db);
  const known = new Set<string>([...Object.values(TENANT_COLLECTIONS), ...REBUILT_COLLECTIONS]);
  for (const { name } of await tenant.listCollections({}, { nameOnly: true }).toArray()) {
    if (!known.has(name) && !name.startsWith('system.')) options.report?.(`warning: collection "${name}" is not part of the export format: left out`);
  }

  const control = store.control;
  // Numbers as their BSON types (Int32, Double, Long), not JS numbers: a double 12.0 would
  // otherwise come back as an int32, and a large integer stored as a double as an int64.
  const exact = { promoteValues: false } as const;
  const sources: Record<DataFile, () => AsyncIterable<Document>> = {
    database: async function* () {
      yield record;
    },
    credentials: () => control.collection(CONTROL_COLLECTIONS.credentials).find({ db }, exact).sort({ _id: 1 }),
    // `_id` order: a document moved by an update during the scan is still read once.
    entities: () => tenant.collection(TENANT_COLLECTIONS.entities).find({}, exact).sort({ _id: 1 }),
    history: () => tenant.collection(TENANT_COLLECTIONS.history).find({}, exact).sort({ _id: 1 }),
    deliveries: () => tenant.collection(TENANT_COLLECTIONS.deliveries).find({}, exact).sort({ _id: 1 }),
    pending: () => control.collection(CONTROL_COLLECTIONS.pending).find({ db }, exact),
    objects: () => exportObjects(deps, db, dir, options),
  };
  const files = {} as Record<DataFile, FileSummary>;
  for (const name of Object.keys(DATA_FILES) as DataFile[]) {
    files[name] = await writeNdjson(join(dir, DATA_FILES[name]), sources[name]());
    options.report?.(`${DATA_FILES[name]}: ${files[name].count}`);
  }

  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    formatVersion: BACKUP_FORMAT_VERSION,
    db,
    schemaVersion: options.schemaVersion ?? SCHEMA_VERSION,
    startedAt,
    exportedAt: new Date().toISOString(),
    files,
  };
  const temporary = join(dir, `${MANIFEST_FILE}.partial`);
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
  await rename(temporary, join(dir, MANIFEST_FILE));
  return manifest;
}
