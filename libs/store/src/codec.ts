import {
  FIELD_DESCRIPTORS,
  fieldDescriptorOf,
  newProperties,
  type Entity,
  type FilterField,
  type Scalar,
  type SortKeys,
  type StorageForm,
  type StoredEntity,
  type Value,
} from '@entia/domain';
import { BSON, ObjectId, type Document } from 'mongodb';

/**
 * How an entity is kept in MongoDB: one document, its property value arrays at the top level
 * (names are letters-first or known `_` system names, so they never collide with the fields
 * below), ids and references as ObjectIds, datetimes as dates. Derived fields, rewritten on every
 * write so they can never disagree with the properties:
 * - `__v`     version, for compare-and-set writes
 * - `__read`  who may read: person ids, `domain`, `public` (every read filters on it)
 * - `__q`     word prefixes of the searchable values (`q` matches them by equality)
 * - `__sort`  per property and field the smallest and largest value (engine-independent sorting)
 * - `__av`    one entry per property, field and value: serves `eq`/`in` filters on any property
 * The four above are the domain's (`StoredEntity.index`, made by `materialise`), stored as given.
 * Two more are the store's own lookups, encoded here from the values like the values themselves:
 * - `__vids`  every value id (finds a value by its `_id` through an index)
 * - `__refs`  every referenced entity id (finds referrers)
 * Kept by the write path (`EntityWriter`), not derived from the properties:
 * - `__w`        a token of the last write (tells whether a commit whose answer was lost happened)
 * - `__outbox`   work for the worker that the writes left (SPEC §9), until it is delivered
 * - `__unsettled` since when the outbox has held work: set while it is not empty (the entity's own
 *                pending mark: indexed, so the worker's sweep finds an outbox whose job was lost)
 * - `__deleted`  set on a deleted entity kept (readable by nobody) until its outbox is delivered
 */
export interface EntityDocument extends Document {
  _id: ObjectId;
  __v: number;
  __read: string[];
  __vids: ObjectId[];
  __refs: ObjectId[];
  __q: string[];
  __sort: SortKeys;
  __av: string[];
}

export const DERIVED_FIELDS = ['__v', '__read', '__vids', '__refs', '__q', '__sort', '__av'] as const;

/** Every field of the document that is not a property: what a read never returns. */
export const INTERNAL_FIELDS = [...DERIVED_FIELDS, '__w', '__outbox', '__unsettled', '__deleted'] as const;

/** Each storage form a value type may ask for (`FieldDescriptor.storedAs`), both ways. */
const STORAGE: Record<StorageForm, { encode(wire: unknown): unknown; decode(stored: unknown): unknown }> = {
  'as-is': { encode: (wire) => wire, decode: (stored) => stored },
  'object-id': { encode: (wire) => new ObjectId(wire as string), decode: (stored) => (stored as ObjectId).toHexString() },
  date: { encode: (wire) => new Date(wire as string), decode: (stored) => (stored as Date).toISOString() },
};

/** The fields kept in another form than their wire form, converted where they stand. */
const CONVERTED = FIELD_DESCRIPTORS.filter((field) => field.storedAs !== 'as-is');

/** A filter's scalar as the field is stored, so it compares with what the documents hold. */
export function storedScalar(field: FilterField, value: Scalar): unknown {
  return STORAGE[fieldDescriptorOf(field).storedAs].encode(value);
}

/** Converts `fields` (a copy of a value's data) in place, each field where it stands. */
function convert(fields: Document, way: 'encode' | 'decode'): Document {
  for (const field of CONVERTED) if (fields[field.name] !== undefined) fields[field.name] = STORAGE[field.storedAs][way](fields[field.name]);
  return fields;
}

/** Some fields of a stored value (a grouped list's keys) in their wire form. */
export function decodeFields(stored: Document): Document {
  return convert({ ...stored }, 'decode');
}

// A value's identity and provenance are an id, a moment and a person: stored like a reference and a datetime.
const ID = STORAGE['object-id'];
const MOMENT = STORAGE.date;

// A value's `type` is the name of the property it is stored under: not stored again (it
// was one more field in every value), given back from the property's name when decoded.
function encodeValue(value: Value): Document {
  const { _id, type: _name, created, ...data } = value;
  return { _id: ID.encode(_id), ...convert(data, 'encode'), created: { at: MOMENT.encode(created.at), by: ID.encode(created.by) } };
}

/**
 * js-bson looks array names up in its `fieldsAsRaw` option without an own-property check, so the
 * values of a property named like an Object.prototype member (`constructor`, `toString`, …) arrive
 * as raw BSON bytes. They are decoded here; every other value arrives decoded already.
 */
function decoded(stored: Document | Uint8Array): Document {
  return stored instanceof Uint8Array ? BSON.deserialize(stored) : stored;
}

function decodeValue(name: string, raw: Document | Uint8Array): Value {
  // Documents written before values dropped it still hold `type`: the property's name wins either way.
  const { _id, type: _stored, created, ...data } = decoded(raw);
  return {
    _id: ID.decode(_id) as string,
    type: name,
    ...(convert(data, 'decode') as Omit<Value, '_id' | 'type' | 'created'>),
    created: { at: MOMENT.decode(created.at) as string, by: ID.decode(created.by) as string },
  };
}

/** The document of an entity as the domain built it (`materialise`): its values encoded, its index as given. */
export function toDocument({ entity, index }: StoredEntity, version: number): EntityDocument {
  const document: EntityDocument = {
    _id: new ObjectId(entity._id),
    __v: version,
    __read: index.read,
    __vids: [],
    __refs: [],
    __q: index.search,
    __sort: index.sort,
    __av: index.attributes,
  };
  const refs = new Set<string>();
  for (const [name, values] of Object.entries(entity.properties)) {
    document[name] = values.map(encodeValue);
    for (const value of values) {
      // A `_reference` entry repeats the id of the value it stands for (domain/derived/computed.ts).
      if (name !== '_reference') document.__vids.push(new ObjectId(value._id));
      if (value.reference !== undefined) refs.add(value.reference);
    }
  }
  document.__refs = [...refs].map((id) => new ObjectId(id));
  return document;
}

export function fromDocument(document: Document): { entity: Entity; version: number } {
  const properties = newProperties();
  for (const [name, values] of Object.entries(document)) {
    if (name === '_id' || name.startsWith('__') || !Array.isArray(values)) continue;
    properties[name] = values.map((value) => decodeValue(name, value));
  }
  return { entity: { _id: (document._id as ObjectId).toHexString(), properties }, version: Number(document.__v ?? 0) };
}
