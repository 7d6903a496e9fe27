import { CredentialTaken, type CredentialKind, type MetaTypes } from '@entia/domain';
import type { Collection, Db } from 'mongodb';
import { API_KEY_INDEXES, ensureIndexes } from './indexes';
import { PendingWork, type PendingMark } from './pending';
import { duplicateKey } from './query-errors';
import { CONTROL_COLLECTIONS } from './collections';

/** A tenant database as the registry knows it. */
export interface DatabaseRecord {
  _id: string;
  meta: MetaTypes;
  databaseEntity: string;
  createdAt: Date;
  /** Set by `entia-admin delete-database` before it deletes anything: the database is no longer served. */
  deleting?: Date;
}

/** A passkey's public part: what verifies its signatures, and the counter they must raise. */
export interface PasskeyKey {
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  transports?: string[];
  /** What the person called the device when registering it (Entu's client sends `deviceName`). */
  device?: string;
}

/**
 * Where a credential belongs (an API key, an identity, a passkey); `_id` is a SHA-256
 * made from it (an API key's own hash), so the lookup at sign-in is by primary key, and one
 * credential can belong to one person only.
 */
export interface KeyRecord {
  _id: string;
  /** Absent: an API key. */
  kind?: CredentialKind;
  db: string;
  person: string;
  /** The credential's value on the person: deleting it removes the record. */
  value: string;
  createdAt: Date;
  passkey?: PasskeyKey;
  /**
   * An identity whose value was deleted: kept, so that neither matching by e-mail nor
   * self-registration lets it in again; an owner linking it anew replaces the record.
   */
  revokedAt?: Date;
  /**
   * The persons the key depends on: it works only while each of them exists (`keyIsLive`).
   * Absent on keys made before this was recorded, and on the first key of a database.
   */
  sponsors?: string[];
}

/** The service's own database: the registry of tenant databases and the API-key index (SPEC §6). */
export class ControlDb {
  readonly databases: Collection<DatabaseRecord>;
  readonly keys: Collection<KeyRecord>;
  /** Entities whose derived data is not settled yet (SPEC §9). */
  readonly pending: PendingWork;

  constructor(db: Db) {
    this.databases = db.collection<DatabaseRecord>(CONTROL_COLLECTIONS.registry);
    this.keys = db.collection<KeyRecord>(CONTROL_COLLECTIONS.credentials);
    this.pending = new PendingWork(db.collection<PendingMark>(CONTROL_COLLECTIONS.pending));
  }

  /** Builds the indexes of `API_KEY_INDEXES` and `PENDING_INDEXES` the control database lacks. */
  async ensureIndexes(): Promise<string[]> {
    return [...(await ensureIndexes(this.keys, API_KEY_INDEXES)), ...(await this.pending.ensureIndexes())];
  }

  /** Claims a database name; false when it is taken. */
  async register(record: DatabaseRecord): Promise<boolean> {
    try {
      await this.databases.insertOne(record);
      return true;
    } catch (error) {
      if (duplicateKey(error)) return false;
      throw error;
    }
  }

  async database(name: string): Promise<DatabaseRecord | undefined> {
    return (await this.databases.findOne({ _id: name })) ?? undefined;
  }

  async allDatabases(): Promise<DatabaseRecord[]> {
    return this.databases.find().toArray();
  }

  /** Marks a database as being deleted (its record then resolves to nothing, `DatabaseRecords`). */
  async markDeleting(name: string): Promise<void> {
    await this.databases.updateOne({ _id: name }, { $set: { deleting: new Date() } });
  }

  /** Serves a database again: an import marks the name as being deleted while it writes, and clears the mark when done. */
  async clearDeleting(name: string): Promise<void> {
    await this.databases.updateOne({ _id: name }, { $unset: { deleting: '' } });
  }

  async unregister(name: string): Promise<void> {
    await this.databases.deleteOne({ _id: name });
  }

  /**
   * Indexes a credential; a conflict when it already belongs to someone (the same identity or
   * passkey twice). A revoked identity's record gives way to its new link.
   */
  async addKey(record: KeyRecord): Promise<void> {
    try {
      await this.keys.insertOne(record);
    } catch (error) {
      if (!duplicateKey(error)) throw error;
      const relinked = await this.keys.replaceOne({ _id: record._id, revokedAt: { $exists: true } }, record);
      if (relinked.matchedCount === 1) return;
      throw new CredentialTaken(`This ${record.kind ?? 'API key'} already belongs to a person${record.kind === 'passkey' ? '' : ' of this database'}.`);
    }
  }

  /**
   * Moves a passkey's signature counter on from `from` to `to`; false when another sign-in moved it
   * first. Both signed the same counter: one of them is a clone's or a replay's.
   */
  async advanceCounter(id: string, from: number, to: number): Promise<boolean> {
    const done = await this.keys.updateOne({ _id: id, 'passkey.counter': from }, { $set: { 'passkey.counter': to } });
    return done.modifiedCount === 1;
  }

  /** A credential that has not been revoked. */
  async key(hash: string): Promise<KeyRecord | undefined> {
    const record = await this.keys.findOne({ _id: hash });
    return record && !record.revokedAt ? record : undefined;
  }

  /** A credential's record, revoked or not. */
  async keyRecord(id: string): Promise<KeyRecord | undefined> {
    return (await this.keys.findOne({ _id: id })) ?? undefined;
  }

  /** The records of these credentials that exist, revoked or not: one query. */
  async keyRecords(ids: readonly string[]): Promise<KeyRecord[]> {
    return ids.length === 0 ? [] : this.keys.find({ _id: { $in: [...ids] } }).toArray();
  }

  /** Withdraws the record of a credential whose write did not happen. */
  async removeKey(db: string, valueId: string): Promise<void> {
    await this.keys.deleteOne({ db, value: valueId });
  }

  /** Removes every credential record of a database (it is being deleted); resolves with how many. */
  async removeKeysOf(db: string): Promise<number> {
    return (await this.keys.deleteMany({ db })).deletedCount;
  }

  /** Revokes the credential of a deleted value: an identity is kept as revoked (see `revokedAt`), the others go. */
  async revokeKey(db: string, valueId: string): Promise<void> {
    await this.keys.updateOne({ db, value: valueId, kind: 'identity' }, { $set: { revokedAt: new Date() } });
    await this.keys.deleteOne({ db, value: valueId, kind: { $ne: 'identity' } });
  }
}
