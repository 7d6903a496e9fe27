import { indexed, newProperties, parseListQuery, rawQueryOf, type Entity, type FoundGroup, type Value } from '@entia/domain';
import { Store, newId, type EntityCollection } from '@entia/store';
import { STACK_REACH_MS } from './stack-reach';

/**
 * The aggregation of a grouped list (`group=`) against the test stack's MongoDB-protocol server
 * (FerretDB 1.24 here, mongod where available): what one `aggregate` finds, in the domain's terms.
 */
describe('EntityCollection.groups over a real MongoDB-protocol server', () => {
  const db = `t_groups_${process.pid}`;
  const store = Store.open({ url: process.env.MONGODB_URL!, controlDb: `t_groups_ctl_${process.pid}`, timeoutMs: 5000, reachMs: STACK_REACH_MS, monitorCommands: true });
  let entities: EntityCollection;
  const reader = newId();
  const stranger = newId();
  const [book, folder] = [newId(), newId()];
  const tags = [reader, 'domain', 'public'];

  const value = (type: string, data: Partial<Value>): Value => ({ _id: newId(), type, ...data, created: { at: '2024-01-02T03:04:05.000Z', by: reader } });
  const entity = (properties: Record<string, Value[]>, owner = reader): Entity => ({
    _id: newId(),
    properties: newProperties(Object.entries({ _owner: [value('_owner', { reference: owner })], ...properties })),
  });
  const typed = (type: string, label?: string) => value('_type', { reference: type, ...(label === undefined ? {} : { string: label }) });
  const insert = (...list: Entity[]) => entities.insert(list.map((one) => ({ stored: indexed(one, new Set(['title'])) })));
  const groups = async (query: string): Promise<FoundGroup[]> => {
    const parsed = parseListQuery(rawQueryOf(query));
    const found = await entities.groups({ ...parsed, group: parsed.group! }, tags);
    if (!found) throw new Error('too many groups');
    // The engine's order is its own: the rows' order is the domain's.
    return found.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  };

  beforeAll(async () => {
    entities = store.entities(db);
    await entities.ensureIndexes();
    await insert(
      entity({ _type: [typed(book, 'book')], title: [value('title', { string: 'Emma' })], year: [value('year', { number: 1815 })] }),
      entity({ _type: [typed(book, 'book')], title: [value('title', { string: 'Dune' })], year: [value('year', { number: 1965 })] }),
      // The label is being refreshed: a group of its own here, one row for the domain.
      entity({ _type: [typed(book, 'old book')], year: [value('year', { number: 1965 })] }),
      entity({ _type: [typed(folder)], seen: [value('seen', { datetime: '2024-05-01T10:00:00.000Z' })] }),
      entity({ _type: [typed(book, 'book'), typed(folder)] }),
      entity({ title: [value('title', { string: 'untyped' })] }),
      // Read by nobody of `tags`: never counted.
      entity({ _type: [typed(book, 'book')], title: [value('title', { string: 'Emma' })] }, stranger),
    );
  });

  afterAll(async () => {
    await store.database(db).dropDatabase();
    await store.control.dropDatabase();
    await store.close();
  });

  it('groups by the whole list of a reference\'s values, each with its label beside it; an entity without the property is a group without values', async () => {
    expect(await groups('group=_type.reference')).toEqual(
      [
        { values: [[{ reference: book, string: 'book' }]], count: 2 },
        { values: [[{ reference: book, string: 'old book' }]], count: 1 },
        { values: [[{ reference: folder }]], count: 1 },
        { values: [[{ reference: book, string: 'book' }, { reference: folder }]], count: 1 },
        { values: [[]], count: 1 },
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
  });

  it('two keys, filters and q narrow the groups; stored forms come back in their wire form (ids, datetimes)', async () => {
    expect(await groups(`group=_type.reference,year.number&year.number.gte=1900`)).toEqual([
      { values: [[{ reference: book, string: 'book' }], [{ number: 1965 }]], count: 1 },
      { values: [[{ reference: book, string: 'old book' }], [{ number: 1965 }]], count: 1 },
    ]);
    expect(await groups('group=title.string&q=emm')).toEqual([{ values: [[{ string: 'Emma' }]], count: 1 }]);
    expect(await groups(`group=seen.datetime&_type.reference=${folder}`)).toEqual([
      { values: [[]], count: 1 },
      { values: [[{ datetime: '2024-05-01T10:00:00.000Z' }]], count: 1 },
    ]);
  });

  it('is one database command: an aggregate whose reply holds every group (no getMore)', async () => {
    const commands: string[] = [];
    const stop = store.onCommand((name) => commands.push(name));
    await groups('group=_type.reference');
    stop();
    expect(commands).toEqual(['aggregate']);
  });

  it('more groups than the caller computes, or larger ones, return none (the caller refuses the query)', async () => {
    const parsed = parseListQuery(rawQueryOf('group=_type.reference'));
    const query = { ...parsed, group: parsed.group! };
    expect(await entities.groups(query, tags, { groups: 5, bytes: 1_000_000 })).toHaveLength(5);
    expect(await entities.groups(query, tags, { groups: 4, bytes: 1_000_000 })).toBeUndefined();
    expect(await entities.groups(query, tags, { groups: 5, bytes: 200 })).toBeUndefined();
  });
});
