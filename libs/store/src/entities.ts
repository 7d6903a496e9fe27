import type { Entity, ListQuery } from '@entia/domain';
import { ObjectId, type Collection, type Db, type Document } from 'mongodb';
import { fromDocument, toDocument, type EntityDocument } from './codec';
import { compileFilter, compileProjection, compileSort } from './compile';

// Up to this many ids, `many` reads each by its primary key.
const MANY_BY_ID = 32;

export interface Versioned {
  entity: Entity;
  version: number;
}

/**
 * The `entity` collection of one tenant database. Every write is one atomic document operation;
 * a change of an existing entity is a compare-and-set on its version, so two concurrent writers
 * cannot lose each other's values.
 */
export class EntityCollection {
  private readonly collection: Collection<EntityDocument>;

  constructor(
    db: Db,
    private readonly maxTimeMS: number,
  ) {
    this.collection = db.collection<EntityDocument>('entity');
  }

  /** The indexes the reads and lookups need (idempotent; run at start and on database creation). */
  async ensureIndexes(): Promise<void> {
    await this.collection.createIndexes([
      { key: { __read: 1 }, name: 'read_access' },
      { key: { __vids: 1 }, name: 'value_ids', unique: true },
      { key: { __refs: 1 }, name: 'references' },
      { key: { '_type.reference': 1 }, name: 'type' },
      { key: { '_parent.reference': 1 }, name: 'parent' },
      { key: { __q: 1 }, name: 'search' },
      { key: { __av: 1 }, name: 'attribute_values' },
      { key: { '__sort._created.datetime.min': 1, _id: 1 }, name: 'created_asc' },
      { key: { '__sort._created.datetime.max': 1, _id: 1 }, name: 'created_desc' },
    ]);
  }

  async get(id: string): Promise<Versioned | undefined> {
    const document = await this.collection.findOne({ _id: new ObjectId(id) }, { maxTimeMS: this.maxTimeMS });
    return document ? fromDocument(document) : undefined;
  }

  /** The entity holding the value with this `_id` (through the value-id index). */
  async byValueId(valueId: string): Promise<Versioned | undefined> {
    const document = await this.collection.findOne({ __vids: new ObjectId(valueId) }, { maxTimeMS: this.maxTimeMS });
    return document ? fromDocument(document) : undefined;
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
    return new Map(documents.map((document) => {
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

  /** Every entity id of the database in `_id` order, in pages (for a whole-database rebuild). */
  async *allIds(pageSize = 500): AsyncGenerator<string[]> {
    let after: ObjectId | undefined;
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

  async insert(entities: Entity[], searchable: (entity: Entity) => ReadonlySet<string>): Promise<void> {
    if (entities.length > 0) await this.collection.insertMany(entities.map((entity) => toDocument(entity, 1, searchable(entity))));
  }

  /** Replaces the entity if it is still at `version`; false when someone else wrote in between. */
  async replace(entity: Entity, version: number, searchable: ReadonlySet<string>): Promise<boolean> {
    const result = await this.collection.replaceOne(
      { _id: new ObjectId(entity._id), __v: version },
      toDocument(entity, version + 1, searchable),
    );
    return result.matchedCount === 1;
  }

  async delete(id: string, version: number): Promise<boolean> {
    const result = await this.collection.deleteOne({ _id: new ObjectId(id), __v: version });
    return result.deletedCount === 1;
  }

  /**
   * One page of the entities `readTags` may see that match `query`, and how many match in all.
   * Both run under the query time limit.
   */
  async list(query: ListQuery, readTags: string[]): Promise<{ entities: Entity[]; count: number }> {
    const filter = compileFilter(query, readTags);
    const options = { maxTimeMS: this.maxTimeMS };
    const [documents, count] = await Promise.all([
      query.limit === 0
        ? Promise.resolve([])
        : this.collection
            .find(filter, { ...options, projection: compileProjection(query.props), sort: compileSort(query.sort), skip: query.skip, limit: query.limit })
            .toArray(),
      this.collection.countDocuments(filter, options),
    ]);
    return { entities: documents.map((document) => fromDocument(document).entity), count };
  }

  /** Whether entity `id` matches `query` (a definition's reference_query), whatever its visibility. */
  async matches(id: string, query: ListQuery): Promise<boolean> {
    const filter = { $and: [{ _id: new ObjectId(id) }, compileFilter(query, []).$and!.slice(1)].flat() };
    return (await this.collection.countDocuments(filter as never, { maxTimeMS: this.maxTimeMS, limit: 1 })) === 1;
  }

  /**
   * Rebuilds the derived fields of every entity of type `typeId` with `searchable` (after a change
   * of the type's definitions). Each entity is one compare-and-set, retried when a concurrent write
   * wins; entities deleted meanwhile are skipped. Resolves to the number rebuilt.
   */
  async rederiveType(
    typeId: string,
    searchable: ReadonlySet<string>,
    onBatch: (done: number, ids: string[]) => Promise<void> | void = () => undefined,
  ): Promise<number> {
    let done = 0;
    let after: ObjectId | undefined;
    for (;;) {
      const filter: Document = { '_type.reference': new ObjectId(typeId), ...(after ? { _id: { $gt: after } } : {}) };
      const ids = (await this.collection.find(filter, { projection: { _id: 1 }, sort: { _id: 1 }, limit: 500 }).toArray()).map((d) => d._id);
      if (ids.length === 0) return done;
      for (const id of ids) {
        for (let attempt = 0; attempt < 5; attempt++) {
          const current = await this.get(id.toHexString());
          if (!current || (await this.replace(current.entity, current.version, searchable))) break;
        }
        done++;
      }
      after = ids[ids.length - 1];
      await onBatch(done, ids.map((id) => id.toHexString()));
    }
  }

  /** For tests and tools: the raw stored document. */
  raw(id: string): Promise<Document | null> {
    return this.collection.findOne({ _id: new ObjectId(id) });
  }
}
