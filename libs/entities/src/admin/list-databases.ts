import type { Store } from '@entia/store';

/** What the listing needs of object storage: the objects under a prefix, a page at a time. */
export interface ListableObjects {
  list(prefix: string): AsyncIterable<{ key: string; size: number }[]>;
}

export interface DatabaseSummary {
  name: string;
  createdAt: string;
  /** Set while `delete-database` is deleting it (or was cut short: run it again). */
  deleting?: string;
  entities: number;
  history: number;
  /** Bytes the engine says the database takes (data and indexes); undefined when it does not say. */
  storageBytes: number | undefined;
  objects: { count: number; bytes: number };
}

/**
 * Every registered database with its counts and sizes: entities and history rows,
 * storage (`DatabaseUsage`, as `GET /api/{db}` counts them, without a time limit) and its file
 * objects (listed under `<db>/`, the prefix of every object key of it).
 */
export async function listDatabases(store: Store, objects: ListableObjects): Promise<DatabaseSummary[]> {
  const records = (await store.registry.allDatabases()).sort((a, b) => (a._id < b._id ? -1 : 1));
  const summaries: DatabaseSummary[] = [];
  for (const record of records) {
    const usage = store.usage(record._id, null);
    const [entities, history, storageBytes, files] = await Promise.all([usage.entities(), usage.historyRows(), usage.size(), objectsUnder(objects, `${record._id}/`)]);
    summaries.push({
      name: record._id,
      createdAt: record.createdAt.toISOString(),
      ...(record.deleting ? { deleting: record.deleting.toISOString() } : {}),
      entities,
      history,
      storageBytes,
      objects: files,
    });
  }
  return summaries;
}

async function objectsUnder(objects: ListableObjects, prefix: string): Promise<{ count: number; bytes: number }> {
  let count = 0;
  let bytes = 0;
  for await (const page of objects.list(prefix)) {
    count += page.length;
    bytes += page.reduce((sum, object) => sum + object.size, 0);
  }
  return { count, bytes };
}
