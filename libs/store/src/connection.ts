import { MongoClient, type Db } from 'mongodb';
import { ControlDb } from './control';
import { EntityCollection } from './entities';

export interface StoreOptions {
  url: string;
  controlDb: string;
  /** Bounds server selection and connecting, so an outage surfaces as an error, not a hang. */
  timeoutMs: number;
}

/**
 * One MongoDB client for the process. Each tenant `{db}` is its own MongoDB database (hard
 * isolation by construction); the control database holds what spans tenants.
 */
export class Store {
  /** One handle per tenant database: making one per request was a measurable share of a cached GET. */
  private readonly collections = new Map<string, EntityCollection>();

  private constructor(
    readonly client: MongoClient,
    private readonly options: StoreOptions,
  ) {}

  static fromSettings(settings: { MONGODB_URL: string; MONGODB_CONTROL_DB: string; MONGODB_TIMEOUT_MS: number }): Store {
    return Store.open({ url: settings.MONGODB_URL, controlDb: settings.MONGODB_CONTROL_DB, timeoutMs: settings.MONGODB_TIMEOUT_MS });
  }

  /** Connects lazily: the service starts even while MongoDB is down, and /readyz says so. */
  static open(options: StoreOptions): Store {
    const client = new MongoClient(options.url, {
      serverSelectionTimeoutMS: options.timeoutMs,
      connectTimeoutMS: options.timeoutMs,
      appName: 'entia',
    });
    return new Store(client, options);
  }

  get controlDbName(): string {
    return this.options.controlDb;
  }

  get control(): Db {
    return this.client.db(this.options.controlDb);
  }

  get registry(): ControlDb {
    return new ControlDb(this.control);
  }

  database(name: string): Db {
    return this.client.db(name);
  }

  entities(name: string): EntityCollection {
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new EntityCollection(this.database(name), this.options.timeoutMs);
      this.collections.set(name, collection);
    }
    return collection;
  }

  async ping(): Promise<void> {
    await this.control.command({ ping: 1 });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
