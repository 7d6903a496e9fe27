import { DELETED, type Change } from '@entia/domain';
import { ObjectId, type Collection, type Db } from 'mongodb';
import { HISTORY_INDEXES, ensureIndexes } from './indexes';
import { duplicateKey } from './query-errors';
import { TENANT_COLLECTIONS } from './collections';

/**
 * A change as the write that made it records it (in its outbox, then here): which entity, the
 * entity's version it produced (the order of an entity's changes, whatever the clocks of the
 * processes that wrote them), and for a deletion the owners it had, who may still read its history.
 */
export interface HistoryRow extends Change {
  /** Chosen by the write, so recording a row twice stores it once. */
  id: string;
  entity: string;
  version: number;
  owners?: string[];
}

interface HistoryDocument {
  _id: ObjectId;
  entity: ObjectId;
  v: number;
  at: Date;
  type: string;
  by: string | null;
  worker?: true;
  old?: Change['old'];
  new?: Change['new'];
  owners?: string[];
}

const toDocument = (row: HistoryRow): HistoryDocument => ({
  _id: new ObjectId(row.id),
  entity: new ObjectId(row.entity),
  v: row.version,
  at: new Date(row.at),
  type: row.type,
  by: row.by,
  ...(row.worker ? { worker: true as const } : {}),
  ...(row.old ? { old: row.old } : {}),
  ...(row.new ? { new: row.new } : {}),
  ...(row.owners ? { owners: row.owners } : {}),
});

const toChange = (document: HistoryDocument): Change => ({
  type: document.type,
  at: document.at.toISOString(),
  by: document.by,
  ...(document.worker ? { worker: true as const } : {}),
  ...(document.old ? { old: document.old } : {}),
  ...(document.new ? { new: document.new } : {}),
});

/**
 * The `history` collection of one tenant database: append-only, one document per change, read by
 * entity in version order (index `entity_version`). Rows are recorded by the write's outbox, so the
 * same row may arrive twice: its id makes the second a no-op.
 */
export class HistoryCollection {
  private readonly collection: Collection<HistoryDocument>;

  constructor(
    db: Db,
    private readonly maxTimeMS: number,
  ) {
    this.collection = db.collection<HistoryDocument>(TENANT_COLLECTIONS.history);
  }

  ensureIndexes(): Promise<string[]> {
    return ensureIndexes(this.collection, HISTORY_INDEXES);
  }

  /** Stores the rows that are not stored yet. */
  async record(rows: readonly HistoryRow[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.collection.insertMany(rows.map(toDocument), { ordered: false });
    } catch (error) {
      if (!duplicateKey(error)) throw error;
    }
  }

  /** One page of the entity's changes, newest first, and how many there are. */
  async page(entity: string, limit: number, skip: number): Promise<{ changes: Change[]; count: number }> {
    const filter = { entity: new ObjectId(entity) };
    const options = { maxTimeMS: this.maxTimeMS };
    const [documents, count] = await Promise.all([
      limit === 0 ? [] : this.collection.find(filter, { ...options, sort: { entity: 1, v: -1, _id: -1 }, skip, limit }).toArray(),
      this.collection.countDocuments(filter, options),
    ]);
    return { changes: documents.map(toChange), count };
  }

  /** The entity's changes made up to `at`, oldest first: what it was then is their replay. */
  async until(entity: string, at: string): Promise<Change[]> {
    const documents = await this.collection
      .find({ entity: new ObjectId(entity), at: { $lte: new Date(at) } }, { maxTimeMS: this.maxTimeMS, sort: { entity: 1, v: 1, _id: 1 } })
      .toArray();
    return documents.map(toChange);
  }

  /** The owners a deleted entity had when it was deleted; undefined when it was not (or its history expired). */
  async lastOwners(entity: string): Promise<string[] | undefined> {
    const deletion = await this.collection.findOne({ entity: new ObjectId(entity), type: DELETED }, { maxTimeMS: this.maxTimeMS });
    return deletion ? (deletion.owners ?? []) : undefined;
  }

  /** Removes the whole history of entities deleted before `before` (the retention); resolves with how many entities. */
  async expire(before: Date): Promise<number> {
    const deletions = await this.collection.find({ type: DELETED, at: { $lt: before } }, { projection: { entity: 1 } }).toArray();
    for (const { entity } of deletions) await this.collection.deleteMany({ entity });
    return deletions.length;
  }
}
