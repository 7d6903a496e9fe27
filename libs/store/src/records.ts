import type { ControlDb, DatabaseRecord } from './control';

/**
 * Registry records read once per process: a database's record (its meta-type ids) never changes
 * after creation, and every request and job needs it.
 */
export class DatabaseRecords {
  private readonly records = new Map<string, DatabaseRecord>();

  constructor(private readonly registry: ControlDb) {}

  async get(name: string): Promise<DatabaseRecord | undefined> {
    const cached = this.records.get(name);
    if (cached) return cached;
    const record = await this.registry.database(name);
    // A database being deleted is served no more (entia-admin delete-database marks it first).
    if (!record || record.deleting) return undefined;
    this.records.set(name, record);
    return record;
  }
}
