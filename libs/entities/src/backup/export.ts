import { isDatabaseName } from '@entia/domain';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  BackupError,
  MANIFEST_FILE,
  OBJECTS_DIR,
  SCHEMA_VERSION,
  dumpDatabase,
  isSafeObjectName,
  type BackupManifest,
  type ObjectEntry,
  type Store,
} from '@entia/store';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BackupObjects } from './objects';

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
async function* exportObjects(deps: BackupDeps, db: string, dir: string, options: ExportOptions): AsyncGenerator<ObjectEntry> {
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
 * Exports database `db` into `dir` (the format: `format.ts` of the store): the store dumps its
 * collections (`dumpDatabase`, which says what consistency a dump has while writes go on) and
 * this copies the objects when the dump reaches them, last. docs/deployment.md, "Backup and
 * restore", says what remains and what to do for an exact copy. The manifest is written last: a
 * directory without one is no export.
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
  const files = await dumpDatabase(store, record, dir, {
    objects: () => exportObjects(deps, db, dir, options),
    report: (line) => options.report?.(line),
  });

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
