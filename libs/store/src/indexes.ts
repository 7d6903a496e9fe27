import { MongoServerError, type Collection, type Document, type IndexDescription } from 'mongodb';
import { createHash } from 'node:crypto';

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
  { key: { __unsettled: 1 }, name: 'unsettled' },
  { key: { '__sort._created.datetime.min': 1, _id: 1 }, name: 'created_asc' },
  { key: { '__sort._created.datetime.max': 1, _id: 1 }, name: 'created_desc' },
];

/**
 * Sort indexes a database gets at most, beyond `ENTITY_INDEXES`: built on first use of a sort
 * (`SortIndexes`), so that a list sorted by a property is walked in order rather than sorted in
 * memory. Well below MongoDB's 64 indexes per collection, leaving room for the fixed ones and later
 * definitions; a sort beyond the cap is answered sorted in memory, with a warning.
 */
export const SORT_INDEX_CAP = 24;

/** Every sort index's name starts so (and no other index's does): what the cap counts. */
export const SORT_INDEX_PREFIX = 'sort_';

/** A `__sort` path (`__sort.<property>.<field>.<min|max>`) or `_id`: the only fields a sort index names. */
const SORT_FIELD = /^(?:_id|__sort\._?[A-Za-z][A-Za-z0-9_]{0,63}\.[a-z]{1,16}\.(?:min|max))$/;

/**
 * The index that walks a compiled sort (`compileSort`: its keys, then `_id` in the first key's
 * direction) in order: the same fields, the first one ascending and each other in its direction
 * relative to the first. Walked forwards it gives the sort with a first ascending key, backwards
 * the one with a first descending key, so `title` ascending and `-title` descending… would share
 * one, were it not that they read different fields (the smallest value ascending, the largest
 * descending). The name is `sort_` and a hash of the key: bounded whatever the property names.
 * Undefined for a sort naming any other field (never from `compileSort`; no index from user input
 * that does not have the shape of a sort key).
 */
export function sortIndexOf(sort: Readonly<Record<string, number>>): IndexDefinition | undefined {
  const fields = Object.entries(sort);
  const first = fields[0]?.[1];
  if (first === undefined || !fields.every(([field, direction]) => SORT_FIELD.test(field) && (direction === 1 || direction === -1))) return undefined;
  const key = Object.fromEntries(fields.map(([field, direction]) => [field, direction === first ? 1 : -1])) as Record<string, 1 | -1>;
  const hash = createHash('sha256').update(JSON.stringify(Object.entries(key))).digest('hex').slice(0, 20);
  return { name: `${SORT_INDEX_PREFIX}${hash}`, key };
}

/**
 * Whether an index with `key` gives a compiled sort as it is walked: the sort's fields are the
 * index's first ones, every direction the same or every one reversed (MongoDB walks an index
 * either way).
 */
export function servesSort(key: Readonly<Record<string, unknown>>, sort: Readonly<Record<string, number>>): boolean {
  const indexed = Object.entries(key);
  const wanted = Object.entries(sort);
  if (wanted.length === 0 || indexed.length < wanted.length) return false;
  const at = wanted.map(([field, direction], n) => {
    const [name, order] = indexed[n]!;
    return name === field ? Number(order) * direction : 0;
  });
  return at.every((sign) => sign === 1) || at.every((sign) => sign === -1);
}

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

export async function listIndexes<T extends Document>(collection: Collection<T>): Promise<IndexDescription[]> {
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
