import type { ObjectId } from 'mongodb';
import type { Migration } from './types';
import { TENANT_COLLECTIONS } from '../collections';

const BATCH = 1000;

/**
 * Computed system properties were added later (`_changed`, `_reference`) and sort keys (labels of
 * references, booleans, reference ids), all derived from an entity's values when it is written or
 * refreshed. Entities stored before lack them until then; this marks every entity of every tenant
 * for a refresh (a pending mark with `rederive`), which the worker's sweep carries out through the
 * same code every write runs (`materialise`), under the entities' leases. Until an entity is
 * refreshed its `/pending` says so. Marking again is harmless: a refresh that changes nothing
 * writes nothing.
 */
export const rederive: Migration = {
  version: 3,
  name: 'refresh derived values (_changed, _reference, sort keys)',
  async up({ store, databases, progress, keepLock, signal }) {
    const pending = store.registry.pending;
    for (const db of databases) {
      const entities = store.database(db).collection(TENANT_COLLECTIONS.entities);
      let marked = 0;
      let after: ObjectId | undefined;
      for (;;) {
        await keepLock();
        signal.throwIfAborted();
        const batch = await entities.find(after ? { _id: { $gt: after } } : {}, { sort: { _id: 1 }, limit: BATCH, projection: { _id: 1 } }).toArray();
        if (batch.length === 0) break;
        await pending.mark(db, batch.map((document) => String(document._id)), 0, { rederive: true });
        marked += batch.length;
        after = batch[batch.length - 1]!._id as ObjectId;
      }
      progress({ database: db, message: marked === 0 ? 'no entities' : `${marked} entities marked for the worker to refresh` });
    }
  },
};
