import type { MetaTypes } from '@entia/domain';
import type { Collection, Db } from 'mongodb';
import { API_KEY_INDEXES, ensureIndexes } from './indexes';
import { PendingWork, type PendingMark } from './pending';
import { duplicateKey } from './query-errors';

/** A tenant database as the registry knows it. */
export interface DatabaseRecord {
  _id: string;
  meta: MetaTypes;
  databaseEntity: string;
  createdAt: Date;
}

/** Where an API key belongs; `_id` is the key's SHA-256, so the lookup is by primary key. */
export interface KeyRecord {
  _id: string;
  db: string;
  person: string;
  value: string;
  createdAt: Date;
  /**
   * The persons the key depends on: it works only while each of them exists (`keyIsLive`).
   * Absent on keys made before this was recorded, and on the first key of a database.
   */
  sponsors?: string[];
}

/** The service's own database: the registry of tenant databases and the API-key index (SPEC §6). */
export class ControlDb {
  readonly databases: Collection<DatabaseRecord>;
  readonly keys: Collection<KeyRecord>;
  /** Entities whose derived data is not settled yet (SPEC §9). */
  readonly pending: PendingWork;

  constructor(db: Db) {
    this.databases = db.collection<DatabaseRecord>('databases');
    this.keys = db.collection<KeyRecord>('api_keys');
    this.pending = new PendingWork(db.collection<PendingMark>('pending'));
  }

  /** Builds the indexes of `API_KEY_INDEXES` and `PENDING_INDEXES` the control database lacks. */
  async ensureIndexes(): Promise<string[]> {
    return [...(await ensureIndexes(this.keys, API_KEY_INDEXES)), ...(await this.pending.ensureIndexes())];
  }

  /** Claims a database name; false when it is taken. */
  async register(record: DatabaseRecord): Promise<boolean> {
    try {
      await this.databases.insertOne(record);
      return true;
    } catch (error) {
      if (duplicateKey(error)) return false;
      throw error;
    }
  }

  async database(name: string): Promise<DatabaseRecord | undefined> {
    return (await this.databases.findOne({ _id: name })) ?? undefined;
  }

  async allDatabases(): Promise<DatabaseRecord[]> {
    return this.databases.find().toArray();
  }

  async unregister(name: string): Promise<void> {
    await this.databases.deleteOne({ _id: name });
  }

  async addKey(record: KeyRecord): Promise<void> {
    await this.keys.insertOne(record);
  }

  async key(hash: string): Promise<KeyRecord | undefined> {
    return (await this.keys.findOne({ _id: hash })) ?? undefined;
  }

  async removeKey(db: string, valueId: string): Promise<void> {
    await this.keys.deleteOne({ db, value: valueId });
  }
}
