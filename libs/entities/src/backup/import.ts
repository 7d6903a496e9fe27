import { isDatabaseName } from '@entia/domain';
import {
  BackupError,
  SCHEMA_VERSION,
  SchemaRecords,
  assertNothingStored,
  dropRestored,
  exportedEntityIds,
  exportedObjects,
  exportedRecord,
  objectPath,
  restoreCredentials,
  restoreDocuments,
  restorePending,
  verifyExport,
  type ExportDirectory,
  type KeyRecord,
  type Store,
} from '@entia/store';
import { createReadStream } from 'node:fs';
import { credentialRecordId } from '../keys';
import type { BackupObjects } from './objects';

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
  /** History rows left out: changes written while the export ran that its entity was read before (the store's `restoreDocuments`). */
  historyAhead: number;
}

/** Refuses a target that holds anything: a registry record, a collection, a credential, an object. */
async function assertEmpty(deps: ImportDeps, db: string): Promise<void> {
  const advice = `import into a new or empty database (delete it first: entia-admin delete-database ${db} --yes)`;
  await assertNothingStored(deps.store, db, advice);
  for await (const page of deps.objects.list(`${db}/`)) {
    if (page.length > 0) throw new BackupError(`objects of a database "${db}" remain in storage: ${advice}`);
  }
}

/** The work of one import, once verified and claimed. */
class Importer {
  readonly summary: ImportSummary;

  constructor(
    private readonly deps: ImportDeps,
    private readonly from: ExportDirectory,
    private readonly db: string,
    private readonly options: ImportOptions,
  ) {
    this.summary = { db, from: from.manifest.db, entities: 0, history: 0, objects: 0, credentials: 0, credentialsInUse: 0, identitiesDropped: 0, historyAhead: 0 };
  }

  async run(): Promise<void> {
    const { store } = this.deps;
    const restored = await restoreDocuments(store, this.from, this.db, {
      ...(this.options.schemaVersion !== undefined ? { schemaVersion: this.options.schemaVersion } : {}),
      report: (line) => this.options.report?.(line),
    });
    Object.assign(this.summary, { entities: restored.entities, history: restored.history, historyAhead: restored.historyAhead });
    await this.copyObjects();
    await this.addCredentials(restored.identities);
    // Served from here on (no longer marked as being deleted); then the marks, for the worker to settle.
    await store.registry.clearDeleting(this.db);
    await restorePending(store, this.from, this.db, restored.unsettled);
    await this.invalidateCaches();
  }

  private async copyObjects(): Promise<void> {
    for await (const entry of exportedObjects(this.from)) {
      const meta = { size: entry.size, contentType: entry.contentType, ...(entry.contentDisposition ? { contentDisposition: entry.contentDisposition } : {}) };
      await this.deps.objects.writeStream(`${this.db}/${entry.key}`, createReadStream(objectPath(this.from.dir, entry.key)), meta, this.options.objectTimeoutMs);
      this.summary.objects += 1;
      if (this.summary.objects % 1000 === 0) this.options.report?.(`objects: ${this.summary.objects}`);
    }
    this.options.report?.(`objects: ${this.summary.objects}`);
  }

  /**
   * The database's credential records, re-keyed to its (new) name, so its people sign in with
   * their old API keys. An API key's and a passkey's record id is the credential's own hash, one
   * per service: when the original database still holds it (a copy beside it), the copy goes
   * without. An identity's id includes the database name: made anew from the value's subject
   * (`identities`: by value id, as the entities were restored).
   */
  private async addCredentials(identities: ReadonlyMap<string, string>): Promise<void> {
    const renamed = this.db !== this.from.manifest.db;
    const outcome = await restoreCredentials(this.deps.store, this.from, (exported): KeyRecord | undefined => {
      const record = { ...exported, db: this.db };
      if (record.kind !== 'identity' || !renamed) return record;
      const subject = identities.get(record.value);
      if (record.revokedAt !== undefined || subject === undefined) return undefined;
      return { ...record, _id: credentialRecordId(this.db, { property: '_identity', subject }) };
    });
    Object.assign(this.summary, { credentials: outcome.credentials, credentialsInUse: outcome.inUse, identitiesDropped: outcome.dropped });
    if (this.summary.credentialsInUse > 0) {
      this.options.report?.(`warning: ${this.summary.credentialsInUse} credential(s) belong to a person of another database (the original?): not re-created here; their holders need new ones in "${this.db}"`);
    }
  }

  private async invalidateCaches(): Promise<void> {
    const generations = this.deps.generations;
    if (!generations) return;
    try {
      let first = true;
      for await (const ids of exportedEntityIds(this.from)) {
        await generations.touch(this.db, ids, first);
        first = false;
      }
    } catch (error) {
      this.options.report?.(`warning: caches could not be invalidated (${(error as Error).message}): cached answers of a former "${this.db}" may be served until they expire (CACHE_TTL_SECONDS)`);
    }
  }
}

/** Removes what an import wrote into `db`; false when some of it could not be removed. */
async function undo(deps: ImportDeps, db: string): Promise<boolean> {
  const [stored, objects] = await Promise.all([dropRestored(deps.store, db), deps.objects.removePrefix(`${db}/`).then(() => true, () => false)]);
  // The name is given back last, and only when the rest is gone: otherwise delete-database finds it.
  if (!stored || !objects) return false;
  await deps.store.registry.unregister(db);
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
  const from: ExportDirectory = { dir, manifest: verified.manifest };
  const db = options.as ?? from.manifest.db;
  if (!isDatabaseName(db, store.controlDbName)) throw new BackupError(`"${db.slice(0, 80)}" is not a valid database name`);
  options.report?.(`verified ${dir}: ${verified.counts.entities} entities, ${verified.counts.history} history rows, ${verified.counts.objects} objects (${verified.objectBytes} bytes)`);
  await assertEmpty(deps, db);

  const record = await exportedRecord(from);
  // Into a fresh installation, the first database makes it one at this code's schema version, as
  // create-database does (the migrations an older export needs run on it alone: `restoreDocuments`).
  await new SchemaRecords(store.control).claimFresh(options.schemaVersion ?? SCHEMA_VERSION);
  // The name is claimed (one insert: two imports cannot both have it) marked as being deleted, so
  // no API process serves or caches a half-written database; a run cut short is then finished
  // off by delete-database, like any deletion.
  if (!(await store.registry.register({ ...record, _id: db, deleting: new Date() }))) throw new BackupError(`database "${db}" exists: import into a new or empty database`);

  const importer = new Importer(deps, from, db, options);
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
