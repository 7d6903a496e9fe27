import { indexed, newProperties, type Entity, type Value } from '@entia/domain';
import { DERIVED_FIELDS, fromDocument, toDocument } from '@entia/store';
import { BSON, ObjectId } from 'mongodb';

/** How an entity is kept as one MongoDB document, and read back (libs/store/src/codec.ts). */

const ENTITY = '5f1d7a0c9b1e8a0012345601';
const PERSON = '5f1d7a0c9b1e8a0012345602';
const TARGET = '5f1d7a0c9b1e8a0012345603';
const TYPE = '5f1d7a0c9b1e8a0012345604';
const AT = '2024-05-01T10:00:00.000Z';
let counter = 0x10;
const valueId = () => `5f1d7a0c9b1e8a00123456${(counter++).toString(16).padStart(2, '0')}`;

const value = (type: string, data: Partial<Value>): Value => ({ _id: valueId(), type, ...data, created: { at: AT, by: PERSON } });

const entityOf = (properties: Record<string, Value[]>): Entity => ({ _id: ENTITY, properties: newProperties(Object.entries(properties)) });

/** Through BSON and back, as a document travels to the server and returns. */
const throughBson = (document: object) => BSON.deserialize(BSON.serialize(document));

describe('codec: every value type survives entity → document → entity', () => {
  it.each<[string, Partial<Value>]>([
    ['string', { string: 'Ülle 🌍' }],
    ['string (empty)', { string: '' }],
    ['text', { string: 'line one\nline two' }],
    ['number', { number: -12.5 }],
    ['number (zero)', { number: 0 }],
    ['boolean', { boolean: false }],
    ['date', { date: '2024-02-29' }],
    ['datetime', { datetime: '2024-05-01T10:00:00.500Z' }],
    ['reference', { reference: TARGET }],
    ['reference with its label', { reference: TARGET, string: 'Target' }],
    ['file', { filename: 'report.pdf', filesize: 1024, filetype: 'application/pdf' }],
    ['multilingual string', { string: 'tere', language: 'et' }],
    ['inherited right', { reference: PERSON, inherited: true }],
  ])('%s', (_, data) => {
    const entity = entityOf({ p: [value('p', data)] });
    const document = toDocument(indexed(entity, new Set()), 7);
    expect(fromDocument(document)).toEqual({ entity, version: 7 });
    expect(fromDocument(throughBson(document))).toEqual({ entity, version: 7 });
  });

  it('keeps several properties with several values each, and their order', () => {
    const entity = entityOf({
      name: [value('name', { string: 'b', language: 'en' }), value('name', { string: 'a', language: 'et' })],
      _type: [value('_type', { reference: TYPE })],
      _created: [value('_created', { datetime: AT, reference: PERSON })],
    });
    expect(fromDocument(throughBson(toDocument(indexed(entity, new Set(['name'])), 1))).entity).toEqual(entity);
  });

  it('reads a property named like an Object.prototype member back as its values', () => {
    const entity = entityOf({ constructor: [value('constructor', { string: 'x' })], toString: [value('toString', { number: 1 })] });
    expect(fromDocument(throughBson(toDocument(indexed(entity, new Set()), 1))).entity).toEqual(entity);
  });
});

describe('codec: the stored form of each value field', () => {
  it('stores ids and references as ObjectIds, datetimes and creation times as dates, the rest as given; not the property name again', () => {
    const created = { datetime: '2024-05-01T10:00:00.500Z', reference: TARGET };
    const stored = value('x', created);
    const document = toDocument(indexed(entityOf({ x: [stored], n: [value('n', { number: 3, language: 'en' })] }), new Set()), 1);
    expect(document._id).toEqual(new ObjectId(ENTITY));
    expect(document.x).toEqual([
      {
        _id: new ObjectId(stored._id),
        reference: new ObjectId(TARGET),
        datetime: new Date('2024-05-01T10:00:00.500Z'),
        created: { at: new Date(AT), by: new ObjectId(PERSON) },
      },
    ]);
    expect(document.n[0]).toMatchObject({ number: 3, language: 'en' });
    expect(typeof document.n[0].number).toBe('number');
  });

  it('stores a file value as its three fields', () => {
    const file = value('f', { filename: 'a.png', filesize: 9, filetype: 'image/png' });
    expect(toDocument(indexed(entityOf({ f: [file] }), new Set()), 1).f[0]).toEqual({
      _id: new ObjectId(file._id),
      filename: 'a.png',
      filesize: 9,
      filetype: 'image/png',
      created: { at: new Date(AT), by: new ObjectId(PERSON) },
    });
  });
});

describe('codec: documents stored before values lost their `type` (issue 21)', () => {
  it('decode as before, the property name giving the type whatever the stored one says', () => {
    const stored = value('x', { string: 'kept' });
    const document = toDocument(indexed(entityOf({ x: [stored] }), new Set()), 1);
    const older = { ...document, x: [{ ...document.x[0], type: 'stale' }] };
    expect(fromDocument(throughBson(older)).entity.properties.x).toEqual([stored]);
  });
});

describe('codec: the derived fields are rebuilt from the properties', () => {
  const a = value('name', { string: 'Émile Zola' });
  const b = value('name', { string: 'anna' });
  const sharing = value('_sharing', { string: 'public' });
  const owner = value('_owner', { reference: PERSON });
  const link = value('link', { reference: TARGET, string: 'Target' });
  const again = value('other', { reference: TARGET });
  const size = value('size', { number: 42 });
  const file = value('f', { filename: 'x.pdf', filesize: 5, filetype: 'application/pdf' });
  const entity = entityOf({ name: [a, b], _sharing: [sharing], _owner: [owner], link: [link], other: [again], size: [size], f: [file] });
  const document = toDocument(indexed(entity, new Set(['name', 'size'])), 3);

  it('names exactly the documented derived fields', () => {
    expect(Object.keys(document).filter((key) => key.startsWith('__')).sort()).toEqual([...DERIVED_FIELDS].sort());
    expect(document.__v).toBe(3);
  });

  it('__read: who may read, from the rights and the sharing', () => {
    expect([...document.__read].sort()).toEqual([PERSON, 'public'].sort());
  });

  it('__vids: every value id as an ObjectId', () => {
    expect(document.__vids.map((id) => id.toHexString()).sort()).toEqual([a, b, sharing, owner, link, again, size, file].map((v) => v._id).sort());
  });

  it('__refs: every referenced entity once, as an ObjectId', () => {
    expect(document.__refs.map((id) => id.toHexString()).sort()).toEqual([PERSON, TARGET].sort());
    expect(document.__refs.every((id) => id instanceof ObjectId)).toBe(true);
  });

  it('__q: word prefixes of the searchable properties only, folded', () => {
    expect([...document.__q].sort()).toEqual(['4', '42', 'a', 'an', 'ann', 'anna', 'e', 'em', 'emi', 'emil', 'emile', 'z', 'zo', 'zol', 'zola'].sort());
  });

  it('__sort: per property and field the smallest and largest value, strings folded', () => {
    expect(document.__sort.name).toEqual({ string: { min: 'anna', max: 'emile zola' } });
    expect(document.__sort.size).toEqual({ number: { min: 42, max: 42 } });
    expect(document.__sort.f).toEqual({ filename: { min: 'x.pdf', max: 'x.pdf' }, filesize: { min: 5, max: 5 }, filetype: { min: 'application/pdf', max: 'application/pdf' } });
    // A reference sorts by its label, and by its id (a click on a reference column never errors).
    expect(document.__sort.link).toEqual({ reference: { min: TARGET, max: TARGET }, string: { min: 'target', max: 'target' } });
  });

  it('__av: one entry per property, field and value of the equality-indexed fields', () => {
    expect(document.__av).toEqual(expect.arrayContaining([`size\u001fnumber\u001f42`, `name\u001fstring\u001f"anna"`, `f\u001ffiletype\u001f"application/pdf"`, `link\u001freference\u001f"${TARGET}"`]));
    expect(document.__av.some((entry) => entry.includes('filename') || entry.includes('filesize'))).toBe(false);
  });

  it('none of them come back as properties', () => {
    expect(Object.keys(fromDocument(document).entity.properties).sort()).toEqual(['_owner', '_sharing', 'f', 'link', 'name', 'other', 'size']);
  });

  it('an entity without values has empty derived fields', () => {
    const empty = toDocument(indexed(entityOf({}), new Set(['name'])), 1);
    expect(empty).toEqual({ _id: new ObjectId(ENTITY), __v: 1, __read: expect.any(Array), __vids: [], __refs: [], __q: [], __sort: {}, __av: [] });
  });
});
