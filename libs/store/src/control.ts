import type { MetaTypes } from '@entia/domain';
import { MongoServerError, type Collection, type Db } from 'mongodb';

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
}

const DUPLICATE_KEY = 11000;

/** The service's own database: the registry of tenant databases and the API-key index (SPEC §6). */
export class ControlDb {
  readonly databases: Collection<DatabaseRecord>;
  readonly keys: Collection<KeyRecord>;

  constructor(db: Db) {
    this.databases = db.collection<DatabaseRecord>('databases');
    this.keys = db.collection<KeyRecord>('api_keys');
  }

  async ensureIndexes(): Promise<void> {
    await this.keys.createIndex({ db: 1, value: 1 }, { name: 'value' });
  }

  /** Claims a database name; false when it is taken. */
  async register(record: DatabaseRecord): Promise<boolean> {
    try {
      await this.databases.insertOne(record);
      return true;
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
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
