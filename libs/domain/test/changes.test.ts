import {
  MAX_SNAPSHOT_BYTES,
  MAX_SNAPSHOT_STRING,
  changeEventOf,
  changeRecordOf,
  deliveryOf,
  missingProps,
  newProperties,
  parseFeedFilter,
  parseFeedQuery,
  parseListQuery,
  snapshotOf,
  DomainError,
  type Caller,
  type Entity,
  type Properties,
  type Value,
} from '@entia/domain';
import { ENTITY, NOW, OWNER, STRANGER, TYPE, VIEWER, caller, val } from './fixtures';

// Issue 18: what a change is as the feed tells it, and to whom.

// The same type and owner values in every state, as an entity keeps them across its changes.
const TYPE_VALUE = val('_type', { reference: TYPE });
const OWNER_VALUE = val('_owner', { reference: OWNER });
const entity = (values: Value[]): Entity => {
  const properties = newProperties();
  for (const value of [TYPE_VALUE, ...values]) (properties[value.type] ??= []).push(value);
  return { _id: ENTITY, properties };
};
const owned = (...values: Value[]) => entity([OWNER_VALUE, ...values]);
const person = { at: NOW, by: OWNER };

describe('changeRecordOf', () => {
  const title = val('title', { string: 'Dune' });
  const before = owned(title);

  it('a creation: every property, no before, version 1', () => {
    const record = changeRecordOf(undefined, before, person, 1)!;
    expect(record).toMatchObject({ key: `${ENTITY}:1`, entity: ENTITY, type: TYPE, kind: 'created', version: 1, at: NOW, by: OWNER, properties: ['_owner', '_type', 'title'] });
    expect(record.before).toBeUndefined();
    expect(record.after!.properties.title).toEqual([title]);
    expect(record.worker).toBeUndefined();
  });

  it('a change: only the properties whose values differ, labels included', () => {
    const renamed = owned(val('title', { string: 'Dune Messiah' }, title._id), val('pages', { number: 300 }));
    expect(changeRecordOf(before, renamed, person, 2)).toMatchObject({ kind: 'updated', version: 2, properties: ['pages', 'title'] });
    const ref = val('author', { reference: STRANGER, string: 'Frank' });
    const relabelled = owned(title, { ...ref, string: 'Frank Herbert' });
    expect(changeRecordOf(owned(title, ref), relabelled, person, 3)!.properties).toEqual(['author']);
  });

  it('a deletion: no after, every property it had', () => {
    const record = changeRecordOf(before, undefined, person, 4)!;
    expect(record).toMatchObject({ kind: 'deleted', properties: ['_owner', '_type', 'title'] });
    expect(record.after).toBeUndefined();
    expect(record.before!.properties.title).toEqual([title]);
  });

  it('nothing changed: no record', () => {
    expect(changeRecordOf(before, owned(title), person, 2)).toBeUndefined();
  });

  it("the worker's change: by null, worker true", () => {
    expect(changeRecordOf(before, owned(title, val('total', { number: 3 })), { at: NOW, worker: true }, 2)).toMatchObject({ by: null, worker: true });
  });
});

describe('snapshotOf', () => {
  it('never carries a secret', () => {
    const snapshot = snapshotOf(owned(val('_api_key', { string: 'hash' })).properties);
    expect(snapshot.properties._api_key).toBeUndefined();
    expect(snapshot.partial).toEqual([]);
  });

  it(`leaves out a property with a string over ${MAX_SNAPSHOT_STRING} characters, naming it`, () => {
    const snapshot = snapshotOf(owned(val('text', { string: 'x'.repeat(MAX_SNAPSHOT_STRING + 1) }), val('short', { string: 'x'.repeat(MAX_SNAPSHOT_STRING) })).properties);
    expect(snapshot.partial).toEqual(['text']);
    expect(snapshot.properties.short).toHaveLength(1);
  });

  it(`leaves out the largest properties until it is at most ${MAX_SNAPSHOT_BYTES} bytes; rights and _type always stay`, () => {
    const many = (name: string, count: number) => Array.from({ length: count }, () => val(name, { string: 'y'.repeat(1000) }));
    const viewers = Array.from({ length: 200 }, (_, i) => val('_viewer', { reference: i.toString(16).padStart(24, '0') }));
    const snapshot = snapshotOf(owned(...many('big', 60), ...many('small', 10), ...viewers).properties);
    expect(snapshot.partial).toEqual(['big']);
    expect(snapshot.properties._viewer).toHaveLength(200);
    expect(snapshot.properties._type).toHaveLength(1);
    expect(JSON.stringify(snapshot.properties).length).toBeLessThanOrEqual(MAX_SNAPSHOT_BYTES + 40_000);
  });
});

describe('deliveryOf', () => {
  const viewer = val('_viewer', { reference: VIEWER });
  const rows: [string, Properties | undefined, Properties | undefined, Caller, string, ReturnType<typeof deliveryOf>][] = [
    ['owner, created', undefined, owned().properties, caller(OWNER), '', 'in-view'],
    ['stranger, private', owned().properties, owned(val('title', { string: 'a' })).properties, caller(STRANGER), '', undefined],
    ['anonymous, public', undefined, owned(val('_sharing', { string: 'public' })).properties, {}, '', 'in-view'],
    ['anonymous, domain', undefined, owned(val('_sharing', { string: 'domain' })).properties, {}, '', undefined],
    ['signed in, domain', undefined, owned(val('_sharing', { string: 'domain' })).properties, caller(STRANGER), '', 'in-view'],
    ['viewer loses the right', owned(viewer).properties, owned().properties, caller(VIEWER), '', 'left-view'],
    ['viewer gains the right', owned().properties, owned(viewer).properties, caller(VIEWER), '', 'in-view'],
    ['viewer denied (_noaccess)', owned(viewer).properties, owned(viewer, val('_noaccess', { reference: VIEWER })).properties, caller(VIEWER), '', 'left-view'],
    ['viewer denied, then changed', owned(viewer, val('_noaccess', { reference: VIEWER })).properties, owned(viewer, val('_noaccess', { reference: VIEWER }), val('title', { string: 'b' })).properties, caller(VIEWER), '', undefined],
    ['deleted', owned().properties, undefined, caller(OWNER), '', 'left-view'],
    ['enters the filter', owned(val('pages', { number: 50 })).properties, owned(val('pages', { number: 150 })).properties, caller(OWNER), 'pages.number.gte=100', 'in-view'],
    ['leaves the filter', owned(val('pages', { number: 150 })).properties, owned(val('pages', { number: 50 })).properties, caller(OWNER), 'pages.number.gte=100', 'left-view'],
    ['outside before and after', owned(val('pages', { number: 5 })).properties, owned(val('pages', { number: 50 })).properties, caller(OWNER), 'pages.number.gte=100', undefined],
    ['filter on another type', undefined, owned().properties, caller(OWNER), `_type.reference=${STRANGER}`, undefined],
  ];
  it.each(rows)('%s', (_name, before, after, who, filter, expected) => {
    const record = {
      ...changeRecordOf(before && { _id: ENTITY, properties: before }, after && { _id: ENTITY, properties: after }, person, 2)!,
    };
    expect(deliveryOf(record, [who], parseListQuery(Object.fromEntries(new URLSearchParams(filter))).filters)).toBe(expected);
  });

  it('a filter on a property the snapshot left out holds (one event too many, never one too few)', () => {
    const record = changeRecordOf(undefined, owned(val('text', { string: 'z'.repeat(MAX_SNAPSHOT_STRING + 1) })), person, 1)!;
    expect(deliveryOf(record, [caller(OWNER)], parseFeedFilter('text.string=nothing-like-it').filters)).toBe('in-view');
  });

  it('any of several callers (a webhook\'s owners) may read it', () => {
    const record = changeRecordOf(undefined, owned(viewer), person, 1)!;
    expect(deliveryOf(record, [caller(STRANGER), caller(VIEWER)], [])).toBe('in-view');
  });

  it("a webhook's owner denied on the entity receives nothing of it", () => {
    const record = changeRecordOf(undefined, owned(viewer, val('_noaccess', { reference: VIEWER })), person, 1)!;
    expect(deliveryOf(record, [caller(STRANGER), caller(VIEWER)], [])).toBeUndefined();
  });
});

describe('changeEventOf', () => {
  const record = changeRecordOf(undefined, owned(val('title', { string: 'Dune' })), person, 1)!;

  it('in view: the record, its property names and the values asked for', () => {
    const event = changeEventOf('1-0.0123456789abcdef', 'db', record, 'in-view', ['title']);
    expect(event).toMatchObject({ id: '1-0.0123456789abcdef', db: 'db', entity: ENTITY, kind: 'created', inView: true, properties: ['_owner', '_type', 'title'] });
    expect(event.values).toEqual({ _id: ENTITY, title: record.after!.properties.title });
  });

  it('left the view: neither values nor property names', () => {
    const event = changeEventOf('1-0.0123456789abcdef', 'db', record, 'left-view', ['title']);
    expect(event).toMatchObject({ inView: false, properties: [] });
    expect(event.values).toBeUndefined();
  });

  it('props the record left out are named, to be read from the database', () => {
    const long = changeRecordOf(undefined, owned(val('text', { string: 'z'.repeat(MAX_SNAPSHOT_STRING + 1) })), person, 1)!;
    expect(missingProps(long, ['text', 'title', '_owner'])).toEqual(['text']);
  });
});

describe('parseFeedQuery and parseFeedFilter', () => {
  it.each(['sort', 'limit', 'skip', 'q', 'count', 'after'])('refuses %s, a list-only parameter, naming it', (name) => {
    try {
      parseFeedQuery({ [name]: '1' });
      throw new Error('not refused');
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).errors).toEqual([expect.objectContaining({ parameter: name })]);
    }
  });

  it('takes filters and props as a list query does', () => {
    expect(parseFeedQuery({ 'pages.number.gte': '100', props: 'title,pages' })).toEqual({
      filters: [{ property: 'pages', field: 'number', op: 'gte', value: 100 }],
      props: ['title', 'pages'],
    });
  });

  it('reads a filter written as a query string, a parameter given twice refused', () => {
    expect(parseFeedFilter(`_type.reference=${TYPE}&title.string=a%20b`).filters).toEqual([
      { property: '_type', field: 'reference', op: 'eq', value: TYPE },
      { property: 'title', field: 'string', op: 'eq', value: 'a b' },
    ]);
    expect(() => parseFeedFilter('title.string=a&title.string=b')).toThrow(DomainError);
  });
});
