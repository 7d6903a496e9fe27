import { DELETED } from '@entia/domain';
import type { Db, Document } from 'mongodb';
import { TENANT_COLLECTIONS } from './collections';

/** An entity deleted but kept until the worker delivered its outbox (a tombstone, codec.ts) is not one that exists. */
const EXISTING = { __deleted: { $exists: false } };

/** MongoDB's code for a collection that is not there (FerretDB answers it with a count of 0). */
const NAMESPACE_NOT_FOUND = 26;

/**
 * What a tenant database holds, counted: for `entia-admin databases` and the statistics of
 * `GET /api/{db}`, so both count the same way. Documents are counted from the
 * collections' own counts (`$collStats`, no scan); values, file bytes and deleted values read whole
 * collections, so callers keep the results a while rather than asking per request.
 * Written for FerretDB 1.24 as much as for MongoDB: `$match`, an inclusion `$project`, `$unwind`,
 * `$count` and `$group` with `$sum` of a field are what both run. Every projection keeps `_id`:
 * FerretDB 1.24 panics on an `$unwind` of documents without one, and after a few such panics the
 * whole server exits (measured; docs/decisions.md, "The database home").
 */
export class DatabaseUsage {
  /** `maxTimeMS`: the time limit of each count (null: none, for the admin command). */
  constructor(
    private readonly db: Db,
    private readonly maxTimeMS: number | null,
  ) {}

  private get options() {
    return this.maxTimeMS === null ? {} : { maxTimeMS: this.maxTimeMS };
  }

  /**
   * Entities, from the collection's count: those deleted a moment ago whose deletion the worker
   * has not finished (a tombstone, kept until their outbox is delivered: seconds) still count.
   */
  entities(): Promise<number> {
    return this.documents(TENANT_COLLECTIONS.entities);
  }

  /** Values the existing entities hold: their value ids (`__vids`), one per value. */
  values(): Promise<number> {
    return this.single([{ $match: EXISTING }, { $project: { __vids: 1 } }, { $unwind: '$__vids' }, { $count: 'n' }], 'n');
  }

  /**
   * Declared bytes (`filesize`) of the values of `properties` (the file properties) in the existing
   * entities: one aggregation per property, since neither engine sums the lists of several in one
   * pass that FerretDB runs. Names are property names (`[A-Za-z_][A-Za-z0-9_]*`), safe in a path.
   */
  async fileBytes(properties: readonly string[]): Promise<number> {
    const sums = await Promise.all(
      properties.map((name) =>
        this.single(
          [
            { $match: { ...EXISTING, [`${name}.filesize`]: { $exists: true } } },
            { $project: { [`${name}.filesize`]: 1 } },
            { $unwind: `$${name}` },
            { $group: { _id: null, bytes: { $sum: `$${name}.filesize` } } },
          ],
          'bytes',
        ),
      ),
    );
    return sums.reduce((total, sum) => total + sum, 0);
  }

  /** Rows of history: every change recorded. */
  historyRows(): Promise<number> {
    return this.documents(TENANT_COLLECTIONS.history);
  }

  /** Entities whose deletion history still holds (index `deletions`): those deleted within the retention. */
  deletedEntities(): Promise<number> {
    return this.db.collection(TENANT_COLLECTIONS.history).countDocuments({ type: DELETED }, this.options);
  }

  /** Values a person deleted or replaced (a change with an `old` value), as history still holds them; the worker's recomputations left out. */
  deletedValues(): Promise<number> {
    return this.db.collection(TENANT_COLLECTIONS.history).countDocuments({ old: { $exists: true }, worker: { $exists: false } }, this.options);
  }

  /**
   * Bytes the engine says the database takes (`dbStats`: MongoDB and FerretDB 1.24 both answer it;
   * `totalSize`, else data plus indexes); undefined when it does not say.
   */
  async size(): Promise<number | undefined> {
    try {
      const stats = await this.db.command({ dbStats: 1 });
      if (typeof stats.totalSize === 'number') return stats.totalSize;
      if (typeof stats.storageSize === 'number') return stats.storageSize + (typeof stats.indexSize === 'number' ? stats.indexSize : 0);
      return undefined;
    } catch {
      // An engine without dbStats (or a user not allowed it): the size is unknown, the rest still useful.
      return undefined;
    }
  }

  /** How many documents a collection holds, as it keeps count (one result per shard on a sharded cluster). */
  private async documents(collection: string): Promise<number> {
    try {
      const counts = await this.db.collection(collection).aggregate([{ $collStats: { count: {} } }], this.options).toArray();
      return counts.reduce((total, { count }) => total + Number(count ?? 0), 0);
    } catch (error) {
      if ((error as { code?: unknown }).code === NAMESPACE_NOT_FOUND) return 0;
      throw error;
    }
  }

  /** The one number a pipeline ends in (0 when it yields nothing: nothing matched). */
  private async single(pipeline: Document[], field: string): Promise<number> {
    const [result] = await this.db.collection(TENANT_COLLECTIONS.entities).aggregate(pipeline, this.options).toArray();
    return Number(result?.[field] ?? 0);
  }
}
