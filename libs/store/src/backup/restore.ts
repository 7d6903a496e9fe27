import { ObjectId, type Document } from 'mongodb';
import { CONTROL_COLLECTIONS } from '../collections';
import type { Store } from '../connection';
import type { DatabaseRecord, KeyRecord } from '../control';
import { MIGRATIONS, SCHEMA_VERSION } from '../migrations';
import { duplicateKey } from '../query-errors';
import type { Leases } from '../writer';
import { collectionOf } from './dump';
import { BackupError, type BackupManifest, type ObjectEntry } from './format';
import { plainNumber } from './shapes';
import { documentsOf } from './verify';

/** An export on disk whose manifest has been read (`verifyExport`). */
export interface ExportDirectory {
  dir: string;
  manifest: BackupManifest;
}

const BATCH = 500;
/** How much earlier than the export's start a history row may be dated and still be of a write the export's entity read missed. */
export const HISTORY_CLOCK_MARGIN_MS = 10 * 60 * 1000;

/** No writer reaches a database being imported (it is marked as being deleted): no lease to take. */
const UNSERVED: Leases = { hold: (_name, work) => work({ valid: () => true }) };

/** The registry record of the exported database (`database.ndjson`, verified to hold one). */
export async function exportedRecord(from: ExportDirectory): Promise<DatabaseRecord> {
  let record: DatabaseRecord | undefined;
  for await (const document of documentsOf(from.dir, from.manifest, 'database')) record = document as DatabaseRecord;
  if (!record) throw new BackupError('the export holds no registry record');
  return record;
}

/** The exported objects' index entries (`objects.ndjson`), each checked against its shape. */
export async function* exportedObjects(from: ExportDirectory): AsyncGenerator<ObjectEntry> {
  for await (const document of documentsOf(from.dir, from.manifest, 'objects')) yield document as ObjectEntry;
}

/** The exported entities' ids (hex), in batches. */
export async function* exportedEntityIds(from: ExportDirectory): AsyncGenerator<string[]> {
  let ids: string[] = [];
  for await (const document of documentsOf(from.dir, from.manifest, 'entities')) {
    ids.push((document._id as ObjectId).toHexString());
    if (ids.length >= BATCH) {
      yield ids;
      ids = [];
    }
  }
  yield ids;
}

/** Refuses a target the store holds anything of: a registry record, a collection, a credential. `advice` says what to do. */
export async function assertNothingStored(store: Store, db: string, advice: string): Promise<void> {
  if (await store.registry.database(db)) throw new BackupError(`database "${db}" exists: ${advice}`);
  const collections = await store.database(db).listCollections({}, { nameOnly: true }).toArray();
  if (collections.length > 0) throw new BackupError(`database "${db}" is not empty (collections ${collections.map((c) => c.name).join(', ')}): ${advice}`);
  if (await store.control.collection(CONTROL_COLLECTIONS.credentials).findOne({ db })) throw new BackupError(`credentials of a database "${db}" remain: ${advice}`);
}

/** Inserts documents in batches, as they are read. */
async function insertAll(store: Store, db: string, collection: string, documents: AsyncIterable<Document>): Promise<number> {
  const target = store.database(db).collection(collection);
  let batch: Document[] = [];
  let count = 0;
  for await (const document of documents) {
    batch.push(document);
    if (batch.length >= BATCH) {
      await target.insertMany(batch, { ordered: true });
      count += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) await target.insertMany(batch, { ordered: true });
  return count + batch.length;
}

/** What an entity document must change when the database is renamed: its outbox's object keys carry the name. */
function renamed(document: Document, from: string, to: string): void {
  if (from === to || !Array.isArray(document.__outbox)) return;
  for (const entry of document.__outbox as Document[]) {
    if (entry.kind === 'delete-objects' && Array.isArray(entry.keys)) {
      entry.keys = (entry.keys as unknown[]).map((key) => (typeof key === 'string' && key.startsWith(`${from}/`) ? `${to}/${key.slice(from.length + 1)}` : key));
    }
  }
}

export interface RestoreOptions {
  /** The storage schema version of this code (default `SCHEMA_VERSION`): an older export is upgraded to it. */
  schemaVersion?: number;
  report?(line: string): void;
}

/** What `restoreDocuments` wrote, and what the rest of an import needs to know of it. */
export interface RestoredDocuments {
  entities: number;
  history: number;
  /** History rows left out: changes written while the export ran that its entity was read before (`trimHistory`). */
  historyAhead: number;
  /** The subject of each identity value (by value id): an identity record's id is made with the database's name. */
  identities: ReadonlyMap<string, string>;
  /** Entities whose outbox holds undelivered work: to be marked, so the worker's sweep delivers it. */
  unsettled: readonly string[];
}

/** The tenant collections of an import, once verified and claimed. */
class DocumentRestore {
  readonly restored = { entities: 0, history: 0, historyAhead: 0, identities: new Map<string, string>(), unsettled: [] as string[] };

  constructor(
    private readonly store: Store,
    private readonly from: ExportDirectory,
    private readonly db: string,
    private readonly options: RestoreOptions,
  ) {}

  private documents(file: Parameters<typeof documentsOf>[2]) {
    return documentsOf(this.from.dir, this.from.manifest, file);
  }

  async run(): Promise<void> {
    const { store, db, restored } = this;
    await store.ensureTenantIndexes(db);
    await store.registry.ensureIndexes();
    // History first, like every write: no entity is there without its past.
    restored.history = await insertAll(store, db, collectionOf('history'), this.documents('history'));
    this.options.report?.(`history: ${restored.history}`);
    restored.entities = await insertAll(store, db, collectionOf('entities'), this.noted(this.documents('entities')));
    this.options.report?.(`entities: ${restored.entities}`);
    await this.trimHistory();
    if (restored.historyAhead > 0) {
      this.options.report?.(`history: ${restored.historyAhead} row(s) of changes made while the export ran, newer than their entity as exported, left out`);
    }
    await insertAll(store, db, collectionOf('deliveries'), this.documents('deliveries'));
    await this.upgrade();
  }

  /**
   * An export of an older schema is upgraded here, by the migrations it predates run on this
   * database alone: the service's schema record says every registered database is current, so a
   * later `entia-admin migrate` would not do it.
   */
  private async upgrade(): Promise<void> {
    const code = this.options.schemaVersion ?? SCHEMA_VERSION;
    for (const migration of MIGRATIONS) {
      if (migration.version <= this.from.manifest.schemaVersion || migration.version > code) continue;
      this.options.report?.(`upgrading: migration ${migration.version} (${migration.name})`);
      await migration.up({ store: this.store, databases: [this.db], progress: () => undefined, keepLock: async () => undefined, signal: new AbortController().signal, leases: UNSERVED });
    }
  }

  private async *noted(documents: AsyncIterable<Document>): AsyncGenerator<Document> {
    for await (const document of documents) {
      this.noteEntity(document);
      yield document;
    }
  }

  private noteEntity(document: Document): void {
    renamed(document, this.from.manifest.db, this.db);
    if (Array.isArray(document.__outbox) && document.__outbox.length > 0) this.restored.unsettled.push((document._id as ObjectId).toHexString());
    if (Array.isArray(document._identity)) {
      for (const value of document._identity as Document[]) {
        if (value._id instanceof ObjectId && typeof value.string === 'string') this.restored.identities.set(value._id.toHexString(), value.string);
      }
    }
  }

  /**
   * An export reads the entities, then the history (so no exported change lacks its row); a write
   * that landed between the two left rows of a version the exported entity does not have
   * (history `v` above the entity's `__v`). They go, so the history is the entity's own and its
   * next write does not repeat a version. Only rows made after the export began can be such rows
   * (`HISTORY_CLOCK_MARGIN_MS` covers a request that began before it, and clocks that disagree):
   * those are gathered (one range query; as many as were written in that window), then the
   * entities' versions are read in one pass, and the rows above them deleted. Two scans and no
   * `$in` of hundreds of ids, which FerretDB answers by a scan per query.
   */
  private async trimHistory(): Promise<void> {
    const tenant = this.store.database(this.db);
    const history = tenant.collection(collectionOf('history'));
    const since = new Date(Date.parse(this.from.manifest.startedAt) - HISTORY_CLOCK_MARGIN_MS);
    const recent = new Map<string, { id: ObjectId; v: number }[]>();
    for await (const row of history.find({ at: { $gte: since } }, { projection: { entity: 1, v: 1 }, promoteValues: false })) {
      const v = plainNumber(row.v);
      if (v === undefined) continue;
      const key = String(row.entity);
      recent.set(key, [...(recent.get(key) ?? []), { id: row._id as ObjectId, v }]);
    }
    if (recent.size === 0) return;
    // An entity that is not there (made after the export read the entities, or purged) keeps its rows.
    let ahead: ObjectId[] = [];
    const remove = async () => {
      const { deletedCount } = await history.deleteMany({ _id: { $in: ahead } });
      this.restored.history -= deletedCount;
      this.restored.historyAhead += deletedCount;
      ahead = [];
    };
    for await (const entity of tenant.collection(collectionOf('entities')).find({}, { projection: { __v: 1 }, promoteValues: false })) {
      const version = plainNumber(entity.__v);
      const rows = recent.get(String(entity._id));
      if (version === undefined || !rows) continue;
      for (const row of rows) if (row.v > version) ahead.push(row.id);
      if (ahead.length >= BATCH) await remove();
    }
    if (ahead.length > 0) await remove();
  }
}

/**
 * Writes the exported tenant collections into `db` (claimed and marked as being deleted by the
 * caller, so nothing serves it meanwhile): its indexes, the history, the entities (every id kept;
 * an outbox's object keys renamed to `db`), the webhook deliveries; then the migrations an export
 * of an older schema predates, on this database alone.
 */
export async function restoreDocuments(store: Store, from: ExportDirectory, db: string, options: RestoreOptions): Promise<RestoredDocuments> {
  const restore = new DocumentRestore(store, from, db, options);
  await restore.run();
  return restore.restored;
}

/** How the exported credential records went: written, left out as another database's, or dropped by `rekey`. */
export interface RestoredCredentials {
  credentials: number;
  inUse: number;
  dropped: number;
}

/**
 * The exported credential records, each as `rekey` makes it for `db` (undefined: dropped). A
 * record whose id another database's person holds already (a copy beside its original) is left
 * out and counted.
 */
export async function restoreCredentials(store: Store, from: ExportDirectory, rekey: (record: KeyRecord) => KeyRecord | undefined): Promise<RestoredCredentials> {
  const keys = store.control.collection<KeyRecord>(CONTROL_COLLECTIONS.credentials);
  const outcome: RestoredCredentials = { credentials: 0, inUse: 0, dropped: 0 };
  for await (const document of documentsOf(from.dir, from.manifest, 'credentials')) {
    const record = rekey(document as KeyRecord);
    if (!record) {
      outcome.dropped += 1;
      continue;
    }
    try {
      await keys.insertOne(record);
      outcome.credentials += 1;
    } catch (error) {
      if (!duplicateKey(error)) throw error;
      outcome.inUse += 1;
    }
  }
  return outcome;
}

/**
 * The exported pending marks, and one for each entity with undelivered work (`unsettled`): the
 * worker's sweep settles them in `db` as it would have at the source.
 */
export async function restorePending(store: Store, from: ExportDirectory, db: string, unsettled: readonly string[]): Promise<void> {
  const marks = store.control.collection(CONTROL_COLLECTIONS.pending);
  const at = new Date();
  // Only the fields a mark has (the control database is every tenant's), made anew for this name.
  const fresh = (entity: string, mark: Document = {}) => ({
    _id: new ObjectId(),
    db,
    entity,
    depth: plainNumber(mark.depth) ?? 0,
    ...(mark.rederive === true ? { rederive: true } : {}),
    ...(mark.own === true ? { own: true } : {}),
    at,
  });
  let batch: Document[] = unsettled.map((entity) => fresh(entity, { own: true }));
  for await (const mark of documentsOf(from.dir, from.manifest, 'pending')) {
    batch.push(fresh(String(mark.entity), mark));
    if (batch.length >= BATCH) {
      await marks.insertMany(batch, { ordered: false });
      batch = [];
    }
  }
  if (batch.length > 0) await marks.insertMany(batch, { ordered: false });
}

/** Removes what a restore wrote into `db` (its database, credentials and marks; not its registry record); false when some of it could not be removed. */
export async function dropRestored(store: Store, db: string): Promise<boolean> {
  const steps = await Promise.allSettled([
    store.database(db).dropDatabase(),
    store.control.collection(CONTROL_COLLECTIONS.credentials).deleteMany({ db }),
    store.control.collection(CONTROL_COLLECTIONS.pending).deleteMany({ db }),
  ]);
  return steps.every((step) => step.status === 'fulfilled');
}
