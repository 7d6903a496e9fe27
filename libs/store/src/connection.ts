import { MongoClient, type Db } from 'mongodb';

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
  private constructor(
    readonly client: MongoClient,
    private readonly options: StoreOptions,
  ) {}

  /** Connects lazily: the service starts even while MongoDB is down, and /readyz says so. */
  static open(options: StoreOptions): Store {
    const client = new MongoClient(options.url, {
      serverSelectionTimeoutMS: options.timeoutMs,
      connectTimeoutMS: options.timeoutMs,
      appName: 'entia',
    });
    return new Store(client, options);
  }

  get control(): Db {
    return this.client.db(this.options.controlDb);
  }

  database(name: string): Db {
    return this.client.db(name);
  }

  async ping(): Promise<void> {
    await this.control.command({ ping: 1 });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
