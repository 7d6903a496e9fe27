import type { Collection, Document, ObjectId } from 'mongodb';
import type { EntityCollection } from '../entities';
import type { Leases } from '../writer';
import type { Migration } from './types';
import { TENANT_COLLECTIONS } from '../collections';

const BATCH = 200;
/** A document written by another process between our read and our write is read again, this often. */
const ATTEMPTS = 5;

/**
 * A stored value no longer repeats its property's name as `type` (codec.ts); older
 * entity documents still hold it in every value. This strips it: scans each tenant's `entity`
 * collection in `_id` order, a batch at a time, and rewrites only the property arrays that hold a
 * `type`, each document with a compare-and-set on its version (`__v`), so a write that lands in
 * between is not undone (the document is read again). Running it again finds nothing to do.
 *
 * `history` is left as it is: its rows keep the values as the interface shows them (`type`
 * included) and give them back unchanged; nothing there is redundant storage of the codec's.
 */
export const valueType: Migration = valueTypeMigration(BATCH);

/** The migration, reading `batchSize` documents at a time (a test's smaller batch shows the paging). */
export function valueTypeMigration(batchSize: number): Migration {
  return {
    version: 2,
    name: 'strip the stored type of values',
    async up({ store, databases, progress, keepLock, leases, signal }) {
      for (const db of databases) {
        const entities = store.database(db).collection(TENANT_COLLECTIONS.entities);
        const writer = store.entities(db);
        let scanned = 0;
        let upgraded = 0;
        let after: ObjectId | undefined;
        for (;;) {
          await keepLock();
          const batch = await entities
            .find(after ? { _id: { $gt: after } } : {}, { sort: { _id: 1 }, limit: batchSize })
            .toArray();
          if (batch.length === 0) break;
          for (const document of batch) {
            // A batch may take a minute on FerretDB: longer than a pod's grace period after SIGTERM.
            signal.throwIfAborted();
            if (await upgrade(entities, writer, leases, db, document)) upgraded++;
          }
          scanned += batch.length;
          after = batch[batch.length - 1]!._id as ObjectId;
          progress({ database: db, message: `${scanned} entities scanned, ${upgraded} upgraded` });
        }
        if (scanned === 0) progress({ database: db, message: 'no entities' });
      }
    },
  };
}

/** The property arrays of `document` with the `type` of their values removed; empty when none had one. */
export function withoutValueTypes(document: Document): Record<string, Document[]> {
  const changed: Record<string, Document[]> = {};
  for (const [name, values] of Object.entries(document)) {
    if (name === '_id' || name.startsWith('__') || !Array.isArray(values)) continue;
    if (!values.some((value) => isValueWithType(value))) continue;
    changed[name] = values.map((value) => {
      if (!isValueWithType(value)) return value as Document;
      const { type: _type, ...rest } = value;
      return rest;
    });
  }
  return changed;
}

function isValueWithType(value: unknown): value is Document {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, 'type');
}

/**
 * Rewrites one document's typed values under the entity's write lease; true when it did. The
 * compare-and-set on `__v` (`EntityCollection.patch`) is what protects on MongoDB; on FerretDB
 * (query, then write) only the lease keeps a writer's change from landing between the two and
 * being overwritten.
 */
async function upgrade(entities: Collection<Document>, writer: EntityCollection, leases: Leases, db: string, first: Document): Promise<boolean> {
  if (Object.keys(withoutValueTypes(first)).length === 0) return false;
  return leases.hold(`${db}/${String(first._id)}`, async (lease) => {
    let document: Document | null = first;
    for (let attempt = 0; attempt < ATTEMPTS && document; attempt++) {
      const changed = withoutValueTypes(document);
      if (Object.keys(changed).length === 0) return false;
      if (!lease.valid()) throw new Error(`the write lease of entity ${String(first._id)} could not be kept (Redis slow or away); run migrate again`);
      if (await writer.patch(String(document._id), document.__v as number, changed)) return true;
      document = await entities.findOne({ _id: document._id });
    }
    if (document) throw new Error(`entity ${String(first._id)} kept changing while it was upgraded; run migrate again`);
    return false;
  });
}
