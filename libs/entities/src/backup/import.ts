import { isDatabaseName } from '@entia/domain';
import { MIGRATIONS, SCHEMA_VERSION, SchemaRecords, type DatabaseRecord, type Leases, type KeyRecord, type Store } from '@entia/store';
import { createReadStream } from 'node:fs';
import { ObjectId, type Document } from 'mongodb';
import { credentialRecordId } from '../keys';
import { CONTROL_COLLECTIONS, TENANT_COLLECTIONS } from './collections';
import { BackupError, type BackupManifest, type ObjectEntry } from './format';
import type { BackupObjects } from './objects';
import { plainNumber } from './shapes';
import { documentsOf, objectPath, verifyExport } from './verify';

/** No writer reaches a database being imported (it is marked as being deleted): no lease to take. */
const UNSERVED: Leases = { hold: (_name, work) => work({ valid: () => true }) };

export interface ImportDeps {
  store: Store;
  objects: BackupObjects;
  /** Cache tokens: replaced for every imported entity, so no cached copy of a former database of that name is served. */
  generations?: { touch(db: string, ids: readonly string[], schema?: boolean): Promise<void> };
}

export interface ImportOptions {
  /** The name to import under; the exported name when absent. */
  as?: string;
  /** The storage schema version of this code (default `SCHEMA_VERSION`): an export from a newer one is refused, an older one upgraded. */
  schemaVersion?: number;
  /** How long copying one object may take. */
  objectTimeoutMs: number;
  report?(line: string): void;
}

export interface ImportSummary {
  db: string;
  from: string;
  entities: number;
  history: number;
  objects: number;
  credentials: number;
  /** Credentials left out: an API key or passkey that another database's person holds (a copy made with `--as` beside its original). */
  credentialsInUse: number;
  /** Identity records that could not be carried over to a new name (revoked, or their value is gone). */
  identitiesDropped: number;
  /** History rows left out: changes written while the export ran that its entity was read before (`trimHistory`). */
  historyAhead: number;
}

const BATCH = 500;
/** How much earlier than the export's start a history row may be dated and still be of a write the export's entity read missed. */
export const HISTORY_CLOCK_MARGIN_MS = 10 * 60 * 1000;
const DUPLICATE_KEY = 11000;
const isDuplicate = (error: unknown) => (error as { code?: unknown }).code === DUPLICATE_KEY;

/** Refuses a target that holds anything: a registry record, a collection, a credential, an object. */
async function assertEmpty(deps: ImportDeps, db: string): Promise<void> {
  const { store } = deps;
  const advice = `import into a new or empty database (delete it first: entia-admin delete-database ${db} --yes)`;
  if (await store.registry.database(db)) throw new BackupError(`database "${db}" exists: ${advice}`);
  const collections = await store.database(db).listCollections({}, { nameOnly: true }).toArray();
  if (collections.length > 0) throw new BackupError(`database "${db}" is not empty (collections ${collections.map((c) => c.name).join(', ')}): ${advice}`);
  if (await store.control.collection(CONTROL_COLLECTIONS.credentials).findOne({ db })) throw new BackupError(`credentials of a database "${db}" remain: ${advice}`);
  for await (const page of deps.objects.list(`${db}/`)) {
    if (page.length > 0) throw new BackupError(`objects of a database "${db}" remain in storage: ${advice}`);
  }
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

/** The work of one import, once verified and claimed. */
class Importer {
  readonly summary: ImportSummary;
  /** The subject of each identity value (by value id): an identity record's id is made with the database's name. */
  private readonly identities = new Map<string, string>();
  /** Entities whose outbox holds undelivered work: marked, so the worker's sweep delivers it. */
  private readonly unsettled: string[] = [];

  constructor(
    private readonly deps: ImportDeps,
    private readonly dir: string,
    private readonly manifest: BackupManifest,
    private readonly db: string,
    private readonly options: ImportOptions,
  ) {
    this.summary = { db, from: manifest.db, entities: 0, history: 0, objects: 0, credentials: 0, credentialsInUse: 0, identitiesDropped: 0, historyAhead: 0 };
  }

  private documents(file: Parameters<typeof documentsOf>[2]) {
    return documentsOf(this.dir, this.manifest, file);
  }

  async run(): Promise<void> {
    const { store } = this.deps;
    await store.ensureTenantIndexes(this.db);
    await store.registry.ensureIndexes();
    // History first, like every write: no entity is there without its past.
    this.summary.history = await insertAll(store, this.db, TENANT_COLLECTIONS.history, this.documents('history'));
    this.options.report?.(`history: ${this.summary.history}`);
    this.summary.entities = await insertAll(store, this.db, TENANT_COLLECTIONS.entities, this.noted(this.documents('entities')));
    this.options.report?.(`entities: ${this.summary.entities}`);
    await this.trimHistory();
    if (this.summary.historyAhead > 0) {
      this.options.report?.(`history: ${this.summary.historyAhead} row(s) of changes made while the export ran, newer than their entity as exported, left out`);
    }
    await insertAll(store, this.db, TENANT_COLLECTIONS.deliveries, this.documents('deliveries'));
    await this.upgrade();
    await this.copyObjects();
    await this.addCredentials();
    // Served from here on (no longer marked as being deleted); then the marks, for the worker to settle.
    await this.deps.store.control.collection<{ _id: string }>(CONTROL_COLLECTIONS.registry).updateOne({ _id: this.db }, { $unset: { deleting: '' } });
    await this.markPending();
    await this.invalidateCaches();
  }

  /**
   * An export of an older schema is upgraded here, by the migrations it predates run on this
   * database alone: the service's schema record says every registered database is current, so a
   * later `entia-admin migrate` would not do it.
   */
  private async upgrade(): Promise<void> {
    const code = this.options.schemaVersion ?? SCHEMA_VERSION;
    for (const migration of MIGRATIONS) {
      if (migration.version <= this.manifest.schemaVersion || migration.version > code) continue;
      this.options.report?.(`upgrading: migration ${migration.version} (${migration.name})`);
      await migration.up({ store: this.deps.store, databases: [this.db], progress: () => undefined, keepLock: async () => undefined, signal: new AbortController().signal, leases: UNSERVED });
    }
  }

  private async *noted(documents: AsyncIterable<Document>): AsyncGenerator<Document> {
    for await (const document of documents) {
      this.noteEntity(document);
      yield document;
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
    const tenant = this.deps.store.database(this.db);
    const history = tenant.collection(TENANT_COLLECTIONS.history);
    const since = new Date(Date.parse(this.manifest.startedAt) - HISTORY_CLOCK_MARGIN_MS);
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
      this.summary.history -= deletedCount;
      this.summary.historyAhead += deletedCount;
      ahead = [];
    };
    for await (const entity of tenant.collection(TENANT_COLLECTIONS.entities).find({}, { projection: { __v: 1 }, promoteValues: false })) {
      const version = plainNumber(entity.__v);
      const rows = recent.get(String(entity._id));
      if (version === undefined || !rows) continue;
      for (const row of rows) if (row.v > version) ahead.push(row.id);
      if (ahead.length >= BATCH) await remove();
    }
    if (ahead.length > 0) await remove();
  }

  private noteEntity(document: Document): void {
    renamed(document, this.manifest.db, this.db);
    if (Array.isArray(document.__outbox) && document.__outbox.length > 0) this.unsettled.push((document._id as ObjectId).toHexString());
    if (Array.isArray(document._identity)) {
      for (const value of document._identity as Document[]) {
        if (value._id instanceof ObjectId && typeof value.string === 'string') this.identities.set(value._id.toHexString(), value.string);
      }
    }
  }

  private async copyObjects(): Promise<void> {
    for await (const document of this.documents('objects')) {
      const entry = document as ObjectEntry;
      const meta = { size: entry.size, contentType: entry.contentType, ...(entry.contentDisposition ? { contentDisposition: entry.contentDisposition } : {}) };
      await this.deps.objects.writeStream(`${this.db}/${entry.key}`, createReadStream(objectPath(this.dir, entry.key)), meta, this.options.objectTimeoutMs);
      this.summary.objects += 1;
      if (this.summary.objects % 1000 === 0) this.options.report?.(`objects: ${this.summary.objects}`);
    }
    this.options.report?.(`objects: ${this.summary.objects}`);
  }

  /** The exported marks, and one for each entity with undelivered work: the sweep settles them as it would have at the source. */
  private async markPending(): Promise<void> {
    const marks = this.deps.store.control.collection(CONTROL_COLLECTIONS.pending);
    const at = new Date();
    // Only the fields a mark has (the control database is every tenant's), made anew for this name.
    const fresh = (entity: string, mark: Document = {}) => ({
      _id: new ObjectId(),
      db: this.db,
      entity,
      depth: plainNumber(mark.depth) ?? 0,
      ...(mark.rederive === true ? { rederive: true } : {}),
      ...(mark.own === true ? { own: true } : {}),
      at,
    });
    let batch: Document[] = this.unsettled.map((entity) => fresh(entity, { own: true }));
    for await (const mark of this.documents('pending')) {
      batch.push(fresh(String(mark.entity), mark));
      if (batch.length >= BATCH) {
        await marks.insertMany(batch, { ordered: false });
        batch = [];
      }
    }
    if (batch.length > 0) await marks.insertMany(batch, { ordered: false });
  }

  /**
   * The database's credential records, re-keyed to its (new) name, so its people sign in with
   * their old API keys. An API key's and a passkey's record id is the credential's own hash, one
   * per service: when the original database still holds it (a copy beside it), the copy goes
   * without. An identity's id includes the database name: made anew from the value's subject.
   */
  private async addCredentials(): Promise<void> {
    const keys = this.deps.store.control.collection<KeyRecord>(CONTROL_COLLECTIONS.credentials);
    for await (const document of this.documents('credentials')) {
      const record = { ...(document as KeyRecord), db: this.db };
      if (record.kind === 'identity' && this.db !== this.manifest.db) {
        const subject = this.identities.get(record.value);
        if (record.revokedAt !== undefined || subject === undefined) {
          this.summary.identitiesDropped += 1;
          continue;
        }
        record._id = credentialRecordId(this.db, { property: '_identity', subject });
      }
      try {
        await keys.insertOne(record);
        this.summary.credentials += 1;
      } catch (error) {
        if (!isDuplicate(error)) throw error;
        this.summary.credentialsInUse += 1;
      }
    }
    if (this.summary.credentialsInUse > 0) {
      this.options.report?.(`warning: ${this.summary.credentialsInUse} credential(s) belong to a person of another database (the original?): not re-created here; their holders need new ones in "${this.db}"`);
    }
  }

  private async invalidateCaches(): Promise<void> {
    const generations = this.deps.generations;
    if (!generations) return;
    try {
      let ids: string[] = [];
      let first = true;
      for await (const document of this.documents('entities')) {
        ids.push((document._id as ObjectId).toHexString());
        if (ids.length >= BATCH) {
          await generations.touch(this.db, ids, first);
          first = false;
          ids = [];
        }
      }
      await generations.touch(this.db, ids, first);
    } catch (error) {
      this.options.report?.(`warning: caches could not be invalidated (${(error as Error).message}): cached answers of a former "${this.db}" may be served until they expire (CACHE_TTL_SECONDS)`);
    }
  }
}

/** Removes what an import wrote into `db`; false when some of it could not be removed. */
async function undo(deps: ImportDeps, db: string): Promise<boolean> {
  const { store } = deps;
  const steps = await Promise.allSettled([
    store.database(db).dropDatabase(),
    deps.objects.removePrefix(`${db}/`),
    store.control.collection(CONTROL_COLLECTIONS.credentials).deleteMany({ db }),
    store.control.collection(CONTROL_COLLECTIONS.pending).deleteMany({ db }),
  ]);
  // The name is given back last, and only when the rest is gone: otherwise delete-database finds it.
  if (steps.some((step) => step.status === 'rejected')) return false;
  await store.registry.unregister(db);
  return true;
}

/**
 * Imports the export in `dir` into a new or empty database (`options.as`, or the exported name).
 * Everything is verified first (manifest, checksums, every document and object name); a refusal
 * writes nothing. Then the name is claimed in the registry, and history, entities (every id
 * kept), webhook deliveries, objects, pending marks and credentials are written. Derived data is
 * kept as exported: each document's was consistent with its values when it was read, and what the
 * source had not settled yet (outbox, pending marks) is marked for the worker to settle. A failure
 * half-way removes what was written; should that fail too (or the process die), the message says
 * to run `entia-admin delete-database` and import again.
 */
export async function importDatabase(deps: ImportDeps, dir: string, options: ImportOptions): Promise<ImportSummary> {
  const { store } = deps;
  const verified = await verifyExport(dir, store.controlDbName, options.schemaVersion ?? SCHEMA_VERSION);
  const { manifest } = verified;
  const db = options.as ?? manifest.db;
  if (!isDatabaseName(db, store.controlDbName)) throw new BackupError(`"${db.slice(0, 80)}" is not a valid database name`);
  options.report?.(`verified ${dir}: ${verified.counts.entities} entities, ${verified.counts.history} history rows, ${verified.counts.objects} objects (${verified.objectBytes} bytes)`);
  await assertEmpty(deps, db);

  let record: DatabaseRecord | undefined;
  for await (const document of documentsOf(dir, manifest, 'database')) record = document as DatabaseRecord;
  // Into a fresh installation, the first database makes it one at this code's schema version, as
  // create-database does (the migrations an older export needs run on it alone: Importer.upgrade).
  await new SchemaRecords(store.control).claimFresh(options.schemaVersion ?? SCHEMA_VERSION);
  // The name is claimed (one insert: two imports cannot both have it) marked as being deleted, so
  // no API process serves or caches a half-written database; a run cut short is then finished
  // off by delete-database, like any deletion.
  if (!(await store.registry.register({ ...record!, _id: db, deleting: new Date() }))) throw new BackupError(`database "${db}" exists: import into a new or empty database`);

  const importer = new Importer(deps, dir, manifest, db, options);
  try {
    await importer.run();
  } catch (error) {
    const reason = error instanceof BackupError ? error.message : `${(error as Error).name}: ${(error as Error).message}`;
    const undone = await undo(deps, db).catch(() => false);
    throw new BackupError(
      undone
        ? `import into "${db}" failed, what was written has been removed: ${reason}`
        : `import into "${db}" failed and could not be undone: ${reason}. Run entia-admin delete-database ${db} --yes, then import again`,
    );
  }
  return importer.summary;
}
