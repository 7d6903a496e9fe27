import { randomUUID } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { duplicateKey } from '../query-errors';
import { CONTROL_COLLECTIONS } from '../collections';

/** The documents of the control database's `schema` collection: the version, and the lock of a run. */
interface VersionDocument {
  _id: 'version';
  version: number;
  /** The migrations applied, with when: what `migrate --status` shows. */
  applied: { version: number; name: string; at: Date }[];
}

interface LockDocument {
  _id: 'lock';
  owner: string;
  /** Where and since when: shown to a second run that finds the lock taken. */
  holder: string;
  since: Date;
  expiresAt: Date;
}

/**
 * What the control database says of the schema: `fresh` when it holds no version record and no
 * tenant database (a new installation: born current, nothing to migrate); otherwise the recorded
 * version (0: databases from before migrations existed).
 */
export type StoredSchema = { fresh: true; version: undefined; applied: [] } | { fresh: false; version: number; applied: VersionDocument['applied'] };

/** A held lock: renewed by `keep`, given back by `release`. */
export interface SchemaLock {
  keep(): Promise<void>;
  release(): Promise<void>;
}

/**
 * The schema version record and the migration lock, in the control database's `schema`
 * collection. The lock is one document with a fixed `_id`: inserting it is the only way to take it
 * (a unique key, so two runs cannot both hold it, on any engine), and it expires, so a crashed
 * run blocks the next one for `ttlMs` at most.
 */
export class SchemaRecords {
  private readonly versions: Collection<VersionDocument>;
  private readonly locks: Collection<LockDocument>;

  constructor(private readonly control: Db) {
    this.versions = control.collection<VersionDocument>(CONTROL_COLLECTIONS.schema);
    this.locks = control.collection<LockDocument>(CONTROL_COLLECTIONS.schema);
  }

  async read(): Promise<StoredSchema> {
    const record = await this.versions.findOne({ _id: 'version' });
    if (record) return { fresh: false, version: record.version, applied: record.applied ?? [] };
    const anyDatabase = await this.control.collection(CONTROL_COLLECTIONS.registry).findOne({}, { projection: { _id: 1 } });
    return anyDatabase ? { fresh: false, version: 0, applied: [] } : { fresh: true, version: undefined, applied: [] };
  }

  /** Records that `version` is applied (after its migration ran to its end). */
  async record(version: number, name: string): Promise<void> {
    await this.versions.updateOne({ _id: 'version' }, { $set: { version }, $push: { applied: { version, name, at: new Date() } } }, { upsert: true });
  }

  /**
   * A fresh installation is born at `version` (its databases are created with the current
   * indexes and documents). Nothing is written when a version is recorded already or a database
   * exists: those are for `migrate` to bring up.
   */
  async claimFresh(version: number): Promise<void> {
    if (!(await this.read()).fresh) return;
    try {
      await this.versions.insertOne({ _id: 'version', version, applied: [{ version, name: 'created at this version', at: new Date() }] });
    } catch (error) {
      if (!duplicateKey(error)) throw error;
    }
  }

  /** Takes the migration lock for `ttlMs`; undefined, with who holds it, when another run does. */
  async lock(ttlMs: number, holder: string): Promise<SchemaLock | { heldBy: string; since: Date }> {
    const owner = randomUUID();
    const take = async () => {
      const now = Date.now();
      await this.locks.insertOne({ _id: 'lock', owner, holder, since: new Date(now), expiresAt: new Date(now + ttlMs) });
    };
    try {
      await take();
    } catch (error) {
      if (!duplicateKey(error)) throw error;
      const held = await this.locks.findOne({ _id: 'lock' });
      if (held && held.expiresAt.getTime() > Date.now()) return { heldBy: held.holder, since: held.since };
      // Expired (its run crashed): removed by its owner id, so of two runs finding it expired only
      // one removes it, and only one of them then inserts the new lock.
      if (held) await this.locks.deleteOne({ _id: 'lock', owner: held.owner });
      try {
        await take();
      } catch (again) {
        if (!duplicateKey(again)) throw again;
        const winner = await this.locks.findOne({ _id: 'lock' });
        return { heldBy: winner?.holder ?? 'another run', since: winner?.since ?? new Date() };
      }
    }
    return {
      keep: async () => {
        const kept = await this.locks.updateOne({ _id: 'lock', owner }, { $set: { expiresAt: new Date(Date.now() + ttlMs) } });
        if (kept.matchedCount !== 1) throw new Error('the migration lock was lost (it expired and another run took it): stopped; run migrate again');
      },
      release: async () => {
        await this.locks.deleteOne({ _id: 'lock', owner });
      },
    };
  }
}
