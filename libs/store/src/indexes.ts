import { MongoServerError, type Collection, type Document, type IndexDescription } from 'mongodb';

/** An index the code needs: a name, a key and (optionally) uniqueness. */
export interface IndexDefinition {
  name: string;
  key: Record<string, 1 | -1>;
  unique?: boolean;
}

/** The indexes the reads and lookups of a tenant's `entity` collection need. */
export const ENTITY_INDEXES: readonly IndexDefinition[] = [
  { key: { __read: 1 }, name: 'read_access' },
  { key: { __vids: 1 }, name: 'value_ids', unique: true },
  { key: { __refs: 1 }, name: 'references' },
  { key: { '_type.reference': 1 }, name: 'type' },
  { key: { '_parent.reference': 1 }, name: 'parent' },
  { key: { __q: 1 }, name: 'search' },
  { key: { __av: 1 }, name: 'attribute_values' },
  { key: { '__sort._created.datetime.min': 1, _id: 1 }, name: 'created_asc' },
  { key: { '__sort._created.datetime.max': 1, _id: 1 }, name: 'created_desc' },
];

/** A tenant's `history`: an entity's changes in version order; deletions by age (the retention). */
export const HISTORY_INDEXES: readonly IndexDefinition[] = [
  { key: { entity: 1, v: -1, _id: -1 }, name: 'entity_version' },
  { key: { type: 1, at: 1 }, name: 'deletions' },
];

/** The control database's `api_keys` collection: a person's keys by value id. */
export const API_KEY_INDEXES: readonly IndexDefinition[] = [{ key: { db: 1, value: 1 }, name: 'value' }];

/** The control database's `pending` marks: an entity's marks, and the oldest first (the sweep). */
export const PENDING_INDEXES: readonly IndexDefinition[] = [
  { key: { db: 1, entity: 1 }, name: 'entity' },
  { key: { at: 1 }, name: 'age' },
];

/** Some index definitions could not be built; each failure says which and why. */
export class IndexBuildError extends Error {
  override readonly name = 'IndexBuildError';

  constructor(
    readonly collection: string,
    readonly failures: ReadonlyArray<{ index: string; error: unknown }>,
  ) {
    super(`${collection}: ${failures.length} index(es) not built: ${failures.map((f) => `${f.index} (${describe(f.error)})`).join(', ')}`);
  }
}

const NAMESPACE_NOT_FOUND = 26;

/**
 * Builds every definition the collection lacks, one `createIndex` command each: FerretDB 1.24
 * drops the connection on a `createIndexes` command with several indexes once the collection
 * exists, so a batch failed on every start after the first. Definitions already present (same
 * name, key and uniqueness) cost nothing; every missing one is tried even when another fails.
 * Resolves with the names built; throws `IndexBuildError` naming those that failed.
 */
export async function ensureIndexes<T extends Document>(collection: Collection<T>, definitions: readonly IndexDefinition[]): Promise<string[]> {
  const existing = await listIndexes(collection);
  const missing = definitions.filter((definition) => !existing.some((index) => sameIndex(index, definition)));
  const built: string[] = [];
  const failures: Array<{ index: string; error: unknown }> = [];
  for (const { key, ...options } of missing) {
    try {
      await collection.createIndex(key, options);
      built.push(options.name);
    } catch (error) {
      failures.push({ index: options.name, error });
    }
  }
  if (failures.length > 0) throw new IndexBuildError(collection.collectionName, failures);
  return built;
}

async function listIndexes<T extends Document>(collection: Collection<T>): Promise<IndexDescription[]> {
  try {
    return (await collection.listIndexes().toArray()) as IndexDescription[];
  } catch (error) {
    // A collection that does not exist yet has no indexes; createIndex creates it.
    if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return [];
    throw error;
  }
}

/** A same-named index with another key or uniqueness is not ours: createIndex then reports the conflict. */
function sameIndex(index: IndexDescription, definition: IndexDefinition): boolean {
  return (
    index.name === definition.name &&
    JSON.stringify(index.key) === JSON.stringify(definition.key) &&
    Boolean(index.unique) === Boolean(definition.unique)
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
