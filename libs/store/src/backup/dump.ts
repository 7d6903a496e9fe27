import type { Document } from 'mongodb';
import { join } from 'node:path';
import { CONTROL_COLLECTIONS, TENANT_COLLECTIONS } from '../collections';
import type { Store } from '../connection';
import type { DatabaseRecord } from '../control';
import { DATA_FILES, type DataFile, type FileSummary, type ObjectEntry } from './format';
import { writeNdjson } from './ndjson';

/**
 * What a dump does with each tenant collection of the registry: the file it is copied to, or
 * `rebuilt` when it is left out because it is made again from the entities (a counter without its
 * record starts after the highest number its property holds, `counters.ts`). Keyed by the
 * registry, so a collection added there fails the build until it is placed here.
 */
export const TENANT_FILES: Record<keyof typeof TENANT_COLLECTIONS, DataFile | 'rebuilt'> = {
  entities: 'entities',
  history: 'history',
  deliveries: 'deliveries',
  counters: 'rebuilt',
  counterClaims: 'rebuilt',
};

/** The tenant collection whose documents a file of an export holds (`TENANT_FILES`). */
export function collectionOf(file: DataFile): string {
  const key = (Object.keys(TENANT_FILES) as (keyof typeof TENANT_COLLECTIONS)[]).find((name) => TENANT_FILES[name] === file);
  if (key === undefined) throw new Error(`${DATA_FILES[file]} holds no tenant collection`);
  return TENANT_COLLECTIONS[key];
}

export interface DumpOptions {
  /** The index entries of the objects, copied by the caller as they are asked for: read last (`DATA_FILES` order). */
  objects(): AsyncIterable<ObjectEntry>;
  /** Progress and warnings for the operator, one line each. */
  report?(line: string): void;
}

/**
 * Writes the NDJSON files of an export of the database `record` names into `dir` (see
 * `format.ts`). Each collection is read in `_id` order through a cursor and written as it arrives,
 * so memory stays flat whatever the size. While writes go on, each document is exported as it was
 * at one moment (per-document consistency), not the database at one moment; the files are read in
 * `DATA_FILES` order (marks, entities, then history, then objects), which keeps each entity
 * coherent with its history and marks (an import drops history rows newer than their entity).
 */
export async function dumpDatabase(store: Store, record: DatabaseRecord, dir: string, options: DumpOptions): Promise<Record<DataFile, FileSummary>> {
  const db = record._id;
  const tenant = store.database(db);
  // Every collection of the registry is placed in TENANT_FILES: copied, or made again.
  const known = new Set<string>(Object.values(TENANT_COLLECTIONS));
  for (const { name } of await tenant.listCollections({}, { nameOnly: true }).toArray()) {
    if (!known.has(name) && !name.startsWith('system.')) options.report?.(`warning: collection "${name}" is not part of the export format: left out`);
  }

  const control = store.control;
  // Numbers as their BSON types (Int32, Double, Long), not JS numbers: a double 12.0 would
  // otherwise come back as an int32, and a large integer stored as a double as an int64.
  const exact = { promoteValues: false } as const;
  // `_id` order: a document moved by an update during the scan is still read once.
  const copied = (file: DataFile) => tenant.collection(collectionOf(file)).find({}, exact).sort({ _id: 1 });
  const sources: Record<DataFile, () => AsyncIterable<Document>> = {
    database: async function* () {
      yield record;
    },
    credentials: () => control.collection(CONTROL_COLLECTIONS.credentials).find({ db }, exact).sort({ _id: 1 }),
    entities: () => copied('entities'),
    history: () => copied('history'),
    deliveries: () => copied('deliveries'),
    pending: () => control.collection(CONTROL_COLLECTIONS.pending).find({ db }, exact),
    objects: () => options.objects() as AsyncIterable<Document>,
  };
  const files = {} as Record<DataFile, FileSummary>;
  for (const name of Object.keys(DATA_FILES) as DataFile[]) {
    files[name] = await writeNdjson(join(dir, DATA_FILES[name]), sources[name]());
    options.report?.(`${DATA_FILES[name]}: ${files[name].count}`);
  }
  return files;
}
