import { MAX_GROUPS, MAX_GROUP_BYTES, groupedProperties, positionOf, type CursorPosition, type Entity, type FoundGroup, type GroupKey, type ListQuery, type StoredEntity } from '@entia/domain';
import { BSON, ObjectId, type Collection, type Db, type Document } from 'mongodb';
import { fromDocument, toDocument, type EntityDocument } from './codec';
import { compileAll, compileFilter, compileMatch, compilePage, compileProjection, compileSort } from './compile';
import { compileGroup, foundGroupOf } from './group';
import { ENTITY_INDEXES, ensureIndexes } from './indexes';
import type { HistoryRow } from './history';
import { historyRowsIn, type OutboxEntry } from './outbox';
import { TENANT_COLLECTIONS } from './collections';
import type { SortIndexState } from './sort-indexes';

// Up to this many ids, `many` reads each by its primary key.
const MANY_BY_ID = 32;

export interface Versioned {
  entity: Entity;
  version: number;
}

/** An entity document as stored: with its undelivered outbox, and possibly deleted already. */
export interface Stored extends Versioned {
  outbox: OutboxEntry[];
  /** Since when the outbox has held work (undefined when it is empty, or was written before this was kept). */
  unsettled?: Date;
  /** A deleted entity whose outbox is not delivered yet: nobody reads it any more. */
  deleted: boolean;
}

/** What a committed write leaves in the document. */
export type Next =
  | { kind: 'keep' }
  /** The entity as the domain built it, index included (`materialise`). */
  | { kind: 'replace'; stored: StoredEntity }
  /** Deleted, but kept (readable by nobody) until its outbox is delivered. */
  | { kind: 'tombstone' }
  | { kind: 'purge' };

/** An entity to insert: as the domain built it, the work its creation leaves for the worker, and its history. */
export interface NewEntity {
  stored: StoredEntity;
  outbox?: readonly OutboxEntry[];
  /** Its creation's history rows: recorded before it is inserted (`EntityWriter.createMany`). */
  history?: readonly HistoryRow[];
}

const storedOf = (document: EntityDocument): Stored => ({
  ...fromDocument(document),
  outbox: (document.__outbox as OutboxEntry[] | undefined) ?? [],
  ...(document.__unsettled instanceof Date ? { unsettled: document.__unsettled } : {}),
  deleted: document.__deleted !== undefined,
});

/** An outbox as the document keeps it: with the time since it has held work, or nothing at all. */
const outboxFields = (outbox: readonly OutboxEntry[], since: Date) => (outbox.length > 0 ? { __outbox: [...outbox], __unsettled: since } : {});

/** An entity whose outbox has waited since `since`: what the sweep settles when its job was lost. */
export interface Unsettled {
  id: string;
  since: Date;
}

/**
 * Which filters an engine serves from its primary key: any with an `_id` equality (`compound`:
 * MongoDB), or a lone `_id` equality only (`lone-id`: FerretDB 1.24 scans the whole collection for
 * `{_id, __v}`).
 */
export type KeyLookups = 'compound' | 'lone-id';

/**
 * The `entity` collection of one tenant database. Every write is one document operation, a
 * compare-and-set on the version. That alone does not serialise writers on every engine (FerretDB
 * evaluates an update as query, then write), so changes of existing entities go through
 * `EntityWriter`, which holds the entity's lease around them; the version stays the fence.
 */
export class EntityCollection {
  private readonly collection: Collection<EntityDocument>;

  constructor(
    db: Db,
    private readonly maxTimeMS: number,
    private readonly keyLookups: () => Promise<KeyLookups> = async () => 'compound',
    /** What a list's sort has for an index, asking for one it lacks (`SortIndexes.note`); none: not asked. */
    private readonly sortIndex: (sort: ListQuery['sort']) => SortIndexState = () => 'served',
  ) {
    this.collection = db.collection<EntityDocument>(TENANT_COLLECTIONS.entities);
  }

  /** Builds the indexes of `ENTITY_INDEXES` this database lacks (run at start and on database creation). */
  async ensureIndexes(): Promise<string[]> {
    return ensureIndexes(this.collection, ENTITY_INDEXES);
  }

  /** The entity as stored, unless deleted (with its outbox: whether it has work unsettled). */
  async get(id: string): Promise<Stored | undefined> {
    const found = await this.stored(id);
    return found && !found.deleted ? found : undefined;
  }

  /** The document as it is, a deleted entity's tombstone included. */
  async stored(id: string): Promise<Stored | undefined> {
    const document = await this.collection.findOne({ _id: new ObjectId(id) }, { maxTimeMS: this.maxTimeMS });
    return document ? storedOf(document) : undefined;
  }

  /** The entity holding the value with this `_id` (through the value-id index). */
  async byValueId(valueId: string): Promise<Versioned | undefined> {
    const document = await this.collection.findOne({ __vids: new ObjectId(valueId) }, { maxTimeMS: this.maxTimeMS });
    return document && document.__deleted === undefined ? fromDocument(document) : undefined;
  }

  /**
   * The largest number any entity of type `typeId` holds in `property`, 0 when none does: where a
   * counter starts when it has no record (its first use, or a database restored from an export,
   * which keeps the entities and not the counters). One find on the sort keys (`__sort`).
   */
  async highestNumber(typeId: string, property: string): Promise<number> {
    const path = `__sort.${property}.number.max`;
    const [top] = await this.collection
      .find({ '_type.reference': new ObjectId(typeId), [path]: { $exists: true } }, { maxTimeMS: this.maxTimeMS, projection: { [path]: 1 } })
      .sort({ [path]: -1 })
      .limit(1)
      .toArray();
    const highest = (top?.__sort as Record<string, Record<string, { max?: unknown }>> | undefined)?.[property]?.number?.max;
    return typeof highest === 'number' ? highest : 0;
  }

  /**
   * The entities with these ids that exist. A few are fetched one by one: a lone `_id` equality is
   * the one filter every engine serves from its primary key (FerretDB 1.24 turns `$in` into a
   * collection scan); MongoDB pays a few parallel round trips for it.
   */
  async many(ids: readonly string[]): Promise<Map<string, Entity>> {
    const unique = [...new Set(ids)];
    if (unique.length <= MANY_BY_ID) {
      const found = await Promise.all(unique.map((id) => this.get(id)));
      return new Map(found.flatMap((versioned) => (versioned ? [[versioned.entity._id, versioned.entity] as const] : [])));
    }
    const documents = await this.collection
      .find({ _id: { $in: unique.map((id) => new ObjectId(id)) } }, { maxTimeMS: this.maxTimeMS })
      .toArray();
    return new Map(documents.filter((document) => document.__deleted === undefined).map((document) => {
      const { entity } = fromDocument(document);
      return [entity._id, entity];
    }));
  }

  /** Entities of type `typeId` whose `_parent` is `parentId`: a type's property definitions. */
  async childrenOfType(parentId: string, typeId: string): Promise<Entity[]> {
    const documents = await this.collection
      .find({ '_parent.reference': new ObjectId(parentId), '_type.reference': new ObjectId(typeId) }, { maxTimeMS: this.maxTimeMS })
      .toArray();
    return documents.map((document) => fromDocument(document).entity);
  }

  /** Every property definition (entity of type `propertyType`), or those of the given types only. */
  async definitions(propertyType: string, ofTypes?: readonly string[]): Promise<Entity[]> {
    const filter: Document = { '_type.reference': new ObjectId(propertyType) };
    if (ofTypes) filter['_parent.reference'] = { $in: ofTypes.map((id) => new ObjectId(id)) };
    const documents = await this.collection.find(filter, { maxTimeMS: this.maxTimeMS }).toArray();
    return documents.map((document) => fromDocument(document).entity);
  }

  /** Every entity of type `typeId` (for the meta-type `entity`: the types of the database). */
  async ofType(typeId: string): Promise<Entity[]> {
    return this.definitions(typeId);
  }

  /** The entities whose `_parent` is `parentId`. */
  async children(parentId: string): Promise<Entity[]> {
    const documents = await this.collection.find({ '_parent.reference': new ObjectId(parentId) }, { maxTimeMS: this.maxTimeMS }).toArray();
    return documents.map((document) => fromDocument(document).entity);
  }

  /** The entities holding any reference (system ones included) to `id`. */
  async referrers(id: string): Promise<Entity[]> {
    const documents = await this.collection.find({ __refs: new ObjectId(id) }, { maxTimeMS: this.maxTimeMS }).toArray();
    return documents.map((document) => fromDocument(document).entity);
  }

  /** The ids of the entities whose `_parent` is `parentId`, or that reference `id` at all. */
  async relatedIds(relation: 'children' | 'referrers', id: string): Promise<string[]> {
    const filter = relation === 'children' ? { '_parent.reference': new ObjectId(id) } : { __refs: new ObjectId(id) };
    const documents = await this.collection.find(filter, { projection: { _id: 1 } }).toArray();
    return documents.map((document) => document._id.toHexString());
  }

  /**
   * The entities whose `_parent` is one of `ids` (children), or that reference one of them at all
   * (referrers), optionally of one type: one query for a whole batch of GraphQL reverse-relation
   * fields. At most `cap` are read; the caller refuses a batch that reaches it rather than answer
   * a silently truncated relation.
   */
  async relatedMany(relation: 'children' | 'referrers', ids: readonly string[], typeId: string | undefined, cap: number): Promise<Entity[]> {
    const targets = { $in: ids.map((id) => new ObjectId(id)) };
    const filter: Document = relation === 'children' ? { '_parent.reference': targets } : { __refs: targets };
    if (typeId !== undefined) filter['_type.reference'] = new ObjectId(typeId);
    const documents = await this.collection.find(filter, { maxTimeMS: this.maxTimeMS }).limit(cap).toArray();
    return documents.filter((document) => document.__deleted === undefined).map((document) => fromDocument(document).entity);
  }

  /**
   * The history rows still waiting in outboxes, in batches of about `batchRows`: a read of the
   * whole collection, for figures that read whole collections anyway.
   */
  async *waitingHistory(maxTimeMS: number | null, batchRows = 1000): AsyncGenerator<HistoryRow[]> {
    const cursor = this.collection.find({ __outbox: { $exists: true } }, { projection: { __outbox: 1 }, ...(maxTimeMS === null ? {} : { maxTimeMS }) });
    let batch: HistoryRow[] = [];
    for await (const document of cursor) {
      batch.push(...historyRowsIn((document.__outbox as OutboxEntry[] | undefined) ?? []));
      if (batch.length >= batchRows) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  /**
   * The entities whose outbox has held work since `before` or longer, oldest first: through the
   * `unsettled` index, one find whatever the size of the database.
   */
  async unsettled(before: Date, limit: number): Promise<Unsettled[]> {
    const documents = await this.collection
      .find({ __unsettled: { $lte: before } }, { projection: { __unsettled: 1 }, sort: { __unsettled: 1 }, limit, maxTimeMS: this.maxTimeMS })
      .toArray();
    return documents.map((document) => ({ id: document._id.toHexString(), since: document.__unsettled as Date }));
  }

  /** Every entity id of the database in `_id` order, in pages (for a whole-database rebuild); with `from`, those after it. */
  async *allIds(pageSize = 500, from?: string): AsyncGenerator<string[]> {
    let after: ObjectId | undefined = from === undefined ? undefined : new ObjectId(from);
    for (;;) {
      const filter: Document = after ? { _id: { $gt: after } } : {};
      const ids = (await this.collection.find(filter, { projection: { _id: 1 }, sort: { _id: 1 }, limit: pageSize }).toArray()).map((d) => d._id);
      if (ids.length === 0) return;
      yield ids.map((id) => id.toHexString());
      after = ids[ids.length - 1];
    }
  }

  /** How many entities the database holds. */
  count(): Promise<number> {
    return this.collection.estimatedDocumentCount();
  }

  /**
   * New entities, each with its own outbox, in one ordered `insertMany`: when it fails, the ones
   * before the failure may be stored, those after it are not.
   */
  async insert(entities: readonly NewEntity[], token?: string): Promise<void> {
    const written = token === undefined ? {} : { __w: token };
    const now = new Date();
    const documents = entities.map(({ stored, outbox = [] }) => ({ ...toDocument(stored, 1), ...written, ...outboxFields(outbox, now) }));
    if (documents.length > 0) await this.collection.insertMany(documents);
  }

  /**
   * The token of the entity's last write (undefined when there is no document): after a connection
   * lost during a commit, it tells whether the commit happened.
   */
  async lastWrite(id: string): Promise<string | undefined> {
    const document = await this.collection.findOne({ _id: new ObjectId(id) }, { projection: { __w: 1 }, maxTimeMS: this.maxTimeMS });
    return document ? String(document.__w) : undefined;
  }

  /**
   * Commits `next` with `outbox` if the entity is still at `version`; false when someone else wrote
   * in between (or it is gone). Callers hold the entity's lease (`EntityWriter`). `unsettled` is
   * since when the outbox has held work: kept with it while it is not empty, dropped with it.
   *
   * Where the engine serves `{_id, __v}` from its key, that is the write's filter: an atomic
   * compare-and-set. Where it serves a lone `_id` only (FerretDB), the version is read by `_id` and
   * the write filtered by `_id`: two lookups instead of two scans of the whole collection (the
   * engine's own update is a query, then a write, so no atomicity is lost); a writer whose lease
   * expired still finds the version moved and stops.
   */
  async commit(id: string, version: number, next: Next, outbox: readonly OutboxEntry[], token: string, unsettled = new Date()): Promise<boolean> {
    const _id = new ObjectId(id);
    const filter = await this.atVersion(_id, version);
    if (!filter) return false;
    const kept = { __w: token, ...outboxFields(outbox, unsettled) };
    switch (next.kind) {
      case 'purge':
        return (await this.collection.deleteOne(filter)).deletedCount === 1;
      case 'keep': {
        const change = outbox.length > 0 ? { $set: { __v: version + 1, ...kept } } : { $set: { __v: version + 1, __w: token }, $unset: { __outbox: '', __unsettled: '' } };
        return (await this.collection.updateOne(filter, change)).matchedCount === 1;
      }
      case 'tombstone': {
        // `__vids` holds the entity's own id: a unique index admits one empty (or missing) entry only.
        const tombstone = { _id, __v: version + 1, __deleted: new Date(), __read: [], __vids: [_id], __refs: [], __q: [], __sort: {}, __av: [], ...kept };
        return (await this.collection.replaceOne(filter, tombstone)).matchedCount === 1;
      }
      case 'replace':
        return (await this.collection.replaceOne(filter, { ...toDocument(next.stored, version + 1), ...kept })).matchedCount === 1;
    }
  }

  /**
   * Sets fields of the document while it is at `version`, leaving the version as it is: a rewrite
   * of the stored form, not a change of the entity (a migration). False when it moved or is gone.
   */
  async patch(id: string, version: number, fields: Document): Promise<boolean> {
    const filter = await this.atVersion(new ObjectId(id), version);
    return filter !== undefined && (await this.collection.updateOne(filter, { $set: fields })).matchedCount === 1;
  }

  /** The filter of a compare-and-set at `version` (see `commit`); undefined when the version read by `_id` has moved. */
  private async atVersion(_id: ObjectId, version: number): Promise<Document | undefined> {
    if ((await this.keyLookups()) === 'compound') return { _id, __v: version };
    const current = await this.collection.findOne({ _id }, { projection: { __v: 1 }, maxTimeMS: this.maxTimeMS });
    return current?.__v === version ? { _id } : undefined;
  }

  /**
   * One page of the entities `readTags` may see that match `query`, and how many match in all
   * (unless `query.count` is `none`: then no count is run). `next` is where the page ends when
   * more matches follow it: one entity more than the page is read to know. With `query.after`, the
   * page starts strictly after that position (a keyset condition, `compileAfter`); the count never
   * depends on it. Both run under the query time limit. A sort no index gives asks for its index
   * (built in the background, `SortIndexes`); `sortNotIndexed` when the database is at the cap of
   * sort indexes, so this sort stays sorted in memory.
   */
  async list(query: ListQuery, readTags: string[]): Promise<{ entities: Entity[]; count?: number; next?: CursorPosition; sortNotIndexed?: true }> {
    const capped = query.limit > 0 && this.sortIndex(query.sort) === 'capped';
    const filter = compileFilter(query, readTags);
    const options = { maxTimeMS: this.maxTimeMS };
    const [documents, count] = await Promise.all([
      query.limit === 0
        ? Promise.resolve([])
        : this.collection
            .find(compilePage(query, readTags), { ...options, projection: compileProjection(query.props, query.sort), sort: compileSort(query.sort), skip: query.skip, limit: query.limit + 1 })
            .toArray(),
      query.count === 'none' ? undefined : this.collection.countDocuments(filter, options),
    ]);
    const shown = documents.slice(0, query.limit);
    const last = shown[shown.length - 1];
    const next = documents.length > query.limit && last ? positionOf(last.__sort, query.sort, last._id.toHexString()) : undefined;
    return {
      entities: shown.map((document) => fromDocument(document).entity),
      ...(count === undefined ? {} : { count }),
      ...(next ? { next } : {}),
      ...(capped ? { sortNotIndexed: true as const } : {}),
    };
  }

  /**
   * The groups of a grouped list: every distinct combination of the `group` keys' values among the
   * entities `readTags` may see that match `query`, with how many share it. One `aggregate`, its
   * reply read in one batch (no `getMore` up to `limits.groups`), under the query time limit.
   * Undefined when there are more than `limits.groups` groups, or their keys exceed `limits.bytes`.
   */
  async groups(
    query: Pick<ListQuery, 'filters' | 'terms'> & { group: readonly GroupKey[] },
    readTags: string[],
    limits = { groups: MAX_GROUPS, bytes: MAX_GROUP_BYTES },
  ): Promise<FoundGroup[] | undefined> {
    const properties = groupedProperties(query.group).length;
    const pipeline = compileGroup(query.group, compileFilter(query, readTags), limits.groups);
    const cursor = this.collection.aggregate(pipeline, { maxTimeMS: this.maxTimeMS, batchSize: limits.groups + 2 });
    const found: FoundGroup[] = [];
    let bytes = 0;
    try {
      for await (const document of cursor) {
        bytes += BSON.calculateObjectSize(document);
        if (found.length === limits.groups || bytes > limits.bytes) return undefined;
        found.push(foundGroupOf(document, properties));
      }
    } finally {
      await cursor.close();
    }
    return found;
  }

  /** At most `limit` entities that match `query`, whatever their visibility. */
  async matching(query: Pick<ListQuery, 'filters' | 'terms'>, limit: number): Promise<Entity[]> {
    const documents = await this.collection.find(compileAll(query), { maxTimeMS: this.maxTimeMS, limit }).toArray();
    return documents.map((document) => fromDocument(document).entity);
  }

  /** Whether entity `id` matches `query` (a definition's reference_query), whatever its visibility. */
  async matches(id: string, query: ListQuery): Promise<boolean> {
    return (await this.collection.countDocuments(compileMatch(id, query), { maxTimeMS: this.maxTimeMS, limit: 1 })) === 1;
  }

  /** The ids of every entity of type `typeId`, in `_id` order, in pages. */
  async *idsOfType(typeId: string, pageSize = 500): AsyncGenerator<string[]> {
    let after: ObjectId | undefined;
    for (;;) {
      const filter: Document = { '_type.reference': new ObjectId(typeId), ...(after ? { _id: { $gt: after } } : {}) };
      const ids = (await this.collection.find(filter, { projection: { _id: 1 }, sort: { _id: 1 }, limit: pageSize }).toArray()).map((d) => d._id);
      if (ids.length === 0) return;
      yield ids.map((id) => id.toHexString());
      after = ids[ids.length - 1];
    }
  }

  /** For tests and tools: the raw stored document. */
  raw(id: string): Promise<Document | null> {
    return this.collection.findOne({ _id: new ObjectId(id) });
  }
}
