import { isObjectId } from '@entia/domain';
import { Double, Int32, Long, ObjectId, type Document } from 'mongodb';
import { isSafeObjectName, type BackupManifest, type DataFile, type ObjectEntry } from './format';

/**
 * A number as an export holds it: Extended JSON in canonical mode reads every number back as its
 * BSON type (`Int32`, `Double`, `Long`), which is how documents keep their types exactly; the
 * export's own fields (an object's size, a mark's depth) are read as plain numbers through this.
 */
export function plainNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (value instanceof Int32 || value instanceof Double) return value.valueOf();
  if (value instanceof Long) return value.toNumber();
  return undefined;
}

const isText = (value: unknown, max = 1000): value is string => typeof value === 'string' && value.length > 0 && value.length <= max;
/** A header value an object is stored with: printable, no line break that could split a header. */
const isHeaderText = (value: unknown): value is string => isText(value, 1000) && /^[\x20-\x7e]+$/.test(value);

/**
 * The outbox of an entity document is work the worker will do in the imported database: a
 * `delete-objects` entry must name objects of this export's database only (the import renames
 * them to the target's), or an export could make the worker delete another database's files.
 */
function outboxProblem(outbox: unknown, db: string): string | undefined {
  if (outbox === undefined) return undefined;
  if (!Array.isArray(outbox)) return 'an entity whose outbox is not a list';
  for (const entry of outbox as unknown[]) {
    if (typeof entry !== 'object' || entry === null) return 'an entity with an outbox entry that is not a document';
    const { kind, keys } = entry as { kind?: unknown; keys?: unknown };
    if (kind !== 'delete-objects') continue;
    if (!Array.isArray(keys)) return 'a delete-objects outbox entry without keys';
    for (const key of keys as unknown[]) {
      if (typeof key !== 'string' || !key.startsWith(`${db}/`) || !isSafeObjectName(key.slice(db.length + 1))) {
        return `a delete-objects outbox entry naming an object outside database "${db}" (${JSON.stringify(String(key).slice(0, 80))})`;
      }
    }
  }
  return undefined;
}

/**
 * What every document of each file of an export must be, beyond being a safe document
 * (`parseLine`: no operator or prototype key): undefined when it is, else why not.
 */
export const SHAPES: Record<DataFile, (document: Document, manifest: BackupManifest) => string | undefined> = {
  database: (document, manifest) =>
    document._id !== manifest.db
      ? "the registry record is not the manifest database's"
      : !isObjectId(String(document.databaseEntity)) || typeof document.meta !== 'object' || document.meta === null || Array.isArray(document.meta)
        ? 'the registry record has no database entity or meta-types'
        : !(document.createdAt instanceof Date)
          ? 'the registry record has no creation date'
          : undefined,
  credentials: (document, manifest) =>
    document.db !== manifest.db
      ? 'a credential record of another database'
      : !isText(document._id, 200) || !isObjectId(String(document.person)) || !isObjectId(String(document.value))
        ? 'a credential record without id, person or value'
        : undefined,
  entities: (document, manifest) => (document._id instanceof ObjectId ? outboxProblem(document.__outbox, manifest.db) : 'an entity document without an ObjectId _id'),
  history: (document) => (document._id instanceof ObjectId && document.entity instanceof ObjectId ? undefined : 'a history row without an ObjectId _id and entity'),
  deliveries: (document) => (document._id === undefined ? 'a delivery without _id' : undefined),
  pending: (document, manifest) => (document.db !== manifest.db || !isObjectId(String(document.entity)) ? 'a pending mark of another database or entity' : undefined),
  objects: (document) => {
    const entry = document as Partial<ObjectEntry>;
    if (typeof entry.key !== 'string' || !isSafeObjectName(entry.key)) {
      return `object name ${JSON.stringify(String(entry.key).slice(0, 80))} is not allowed (path segments of letters, digits, ".", "_", "-" only; no "..")`;
    }
    const size = plainNumber(entry.size);
    if (size === undefined || !Number.isSafeInteger(size) || size < 0) return 'an object without a valid size';
    if (!isHeaderText(entry.contentType) || (entry.contentDisposition !== undefined && !isHeaderText(entry.contentDisposition))) return 'an object with an invalid content type or disposition';
    if (typeof entry.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(entry.sha256)) return 'an object without a valid sha256';
    return undefined;
  },
};
