import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readFile, realpath } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { Document } from 'mongodb';
import { BackupError, DATA_FILES, MANIFEST_FILE, OBJECTS_DIR, isSafeObjectName, parseManifest, type BackupManifest, type DataFile, type ObjectEntry } from './format';
import { readNdjson } from './ndjson';
import { SHAPES, plainNumber } from './shapes';

/**
 * The documents of one file of a verified export, each checked against its file's shape; the
 * file's checksum is checked again when it has been read to the end.
 */
export async function* documentsOf(dir: string, manifest: BackupManifest, file: DataFile): AsyncGenerator<Document> {
  let line = 0;
  for await (const document of readNdjson(join(dir, DATA_FILES[file]), DATA_FILES[file], manifest.files[file])) {
    line += 1;
    const problem = SHAPES[file](document, manifest);
    if (problem) throw new BackupError(`${DATA_FILES[file]} line ${line}: ${problem}`);
    // An object's entry is the export's own record, used as plain values (its size a number).
    yield file === 'objects' ? { ...document, size: plainNumber(document.size) } : document;
  }
}

/** The path of an exported object, proven to stay inside `objects/` whatever its name. */
export function objectPath(dir: string, key: string): string {
  const root = resolve(dir, OBJECTS_DIR);
  const path = resolve(root, ...key.split('/'));
  const inside = relative(root, path);
  if (!isSafeObjectName(key) || inside.startsWith('..') || inside.split(sep).includes('..')) throw new BackupError(`object name ${JSON.stringify(key.slice(0, 80))} leaves the export directory`);
  return path;
}

async function checkObject(dir: string, entry: ObjectEntry): Promise<void> {
  const path = objectPath(dir, entry.key);
  const stat = await lstat(path).catch(() => undefined);
  // A symbolic link could point anywhere on this machine: only plain files are read.
  if (!stat?.isFile()) throw new BackupError(`object ${entry.key} is missing from ${OBJECTS_DIR}/ (or not a plain file)`);
  // Nor through a linked directory on the way.
  const [root, real] = await Promise.all([realpath(resolve(dir, OBJECTS_DIR)), realpath(path)]);
  if (relative(root, real).startsWith('..')) throw new BackupError(`object ${entry.key} lies outside ${OBJECTS_DIR}/ (a linked directory)`);
  if (stat.size !== entry.size) throw new BackupError(`object ${entry.key} has ${stat.size} bytes, the export recorded ${entry.size}`);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) hash.update(chunk);
  if (hash.digest('hex') !== entry.sha256) throw new BackupError(`object ${entry.key} does not match its checksum (changed or damaged since the export)`);
}

/** Reads and checks the manifest of the export in `dir`. */
export async function readManifest(dir: string, controlDb: string, codeSchemaVersion: number): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new BackupError(`${join(dir, MANIFEST_FILE)} cannot be read: not an export directory, or the export did not finish`);
  }
  return parseManifest(text, controlDb, codeSchemaVersion);
}

/** What a verified export holds. */
export interface VerifiedExport {
  manifest: BackupManifest;
  counts: Record<DataFile, number>;
  /** The bytes of its objects, together. */
  objectBytes: number;
}

/**
 * Checks a whole export before anything is written: the manifest, every file against its
 * checksum, every document's shape and keys, every object's bytes against its checksum. Reads
 * everything once, a line or a chunk at a time.
 */
export async function verifyExport(dir: string, controlDb: string, codeSchemaVersion: number): Promise<VerifiedExport> {
  const manifest = await readManifest(dir, controlDb, codeSchemaVersion);
  const counts = {} as Record<DataFile, number>;
  let objectBytes = 0;
  for (const file of Object.keys(DATA_FILES) as DataFile[]) {
    counts[file] = 0;
    for await (const document of documentsOf(dir, manifest, file)) {
      counts[file] += 1;
      if (file === 'objects') {
        await checkObject(dir, document as ObjectEntry);
        objectBytes += (document as ObjectEntry).size;
      }
    }
  }
  if (counts.database !== 1) throw new BackupError(`${DATA_FILES.database} must hold exactly one record`);
  return { manifest, counts, objectBytes };
}
