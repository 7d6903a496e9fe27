import { boundedCache, type BoundedCache } from '@entia/domain';
import type { ControlDb, DatabaseRecord } from './control';

/**
 * Registry records read once per process: a database's record (its meta-type ids) never changes
 * after creation, and every request and job needs it. Kept without a ttl for that reason; bounded
 * (`database-records`), a record pushed out is read again on its next use. Requests for the same
 * database at once share one read.
 */
export class DatabaseRecords {
  private readonly records: BoundedCache<string, DatabaseRecord>;

  constructor(registry: ControlDb, max?: number) {
    this.records = boundedCache('database-records', {
      max,
      load: async (name) => {
        const record = await registry.database(name);
        // A database being deleted is served no more (entia-admin delete-database marks it first);
        // neither it nor a missing one is kept.
        return record && !record.deleting ? record : undefined;
      },
    });
  }

  get(name: string): Promise<DatabaseRecord | undefined> {
    return this.records.fetch(name);
  }
}
