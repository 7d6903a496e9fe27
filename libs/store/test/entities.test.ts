import { indexed, newProperties, parseReferenceQuery, type Entity, type Value } from '@entia/domain';
import { Store, newId, type EntityCollection, type OutboxEntry } from '@entia/store';
import { STACK_REACH_MS } from './stack-reach';

// The compare-and-set primitive and the reference_query match, against the test stack's
// MongoDB-protocol server (FerretDB here, mongod where available).
describe('EntityCollection over a real MongoDB-protocol server', () => {
  const db = `t_entities_${process.pid}`;
  const store = Store.open({ url: process.env.MONGODB_URL!, controlDb: `t_entities_ctl_${process.pid}`, timeoutMs: 5000, reachMs: STACK_REACH_MS });
  let entities: EntityCollection;
  const person = newId();

  beforeAll(async () => {
    entities = store.entities(db);
    await entities.ensureIndexes();
  });

  afterAll(async () => {
    await store.database(db).dropDatabase();
    await store.control.dropDatabase();
    await store.close();
  });

  const value = (type: string, data: Partial<Value>): Value => ({ _id: newId(), type, ...data, created: { at: new Date().toISOString(), by: person } });
  const entity = (properties: Record<string, Value[]>): Entity => ({ _id: newId(), properties: newProperties(Object.entries(properties)) });
  const named = (name: string, more: Record<string, Value[]> = {}) => entity({ name: [value('name', { string: name })], ...more });
  const outbox = (): OutboxEntry[] => [{ id: newId(), kind: 'reindex', types: [newId()] }];
  const none = () => new Set<string>();
  /** What `get` answers, without what it carries besides. */
  const versioned = async (id: string) => {
    const found = await entities.get(id);
    return found && { entity: found.entity, version: found.version };
  };

  async function inserted(stored: Entity = named('first')): Promise<Entity> {
    await entities.insert([{ stored: indexed(stored, none()) }], 'token-0');
    return stored;
  }

  describe('relatedMany: one query for the reverse relations of many entities (GraphQL batches)', () => {
    it('finds the children and the referrers of every id given, of one type when asked, and no deleted one', async () => {
      const [a, b] = [await inserted(named('a')), await inserted(named('b'))];
      const [typeX, typeY] = [newId(), newId()];
      const child = await inserted(named('child', { _parent: [value('_parent', { reference: a._id })], _type: [value('_type', { reference: typeX })] }));
      const refA = await inserted(named('refA', { about: [value('about', { reference: a._id })], _type: [value('_type', { reference: typeX })] }));
      const refB = await inserted(named('refB', { about: [value('about', { reference: b._id })], _type: [value('_type', { reference: typeY })] }));
      const gone = await inserted(named('gone', { about: [value('about', { reference: b._id })] }));
      expect(await entities.commit(gone._id, 1, { kind: 'tombstone' }, [], 'token-1')).toBe(true);
      const ids = (found: Entity[]) => found.map((entity) => entity._id).sort();
      expect(ids(await entities.relatedMany('children', [a._id, b._id], undefined, 100))).toEqual([child._id]);
      expect(ids(await entities.relatedMany('referrers', [a._id, b._id], undefined, 100))).toEqual([child._id, refA._id, refB._id].sort());
      expect(ids(await entities.relatedMany('referrers', [a._id, b._id], typeY, 100))).toEqual([refB._id]);
      expect(await entities.relatedMany('referrers', [a._id, b._id], undefined, 2)).toHaveLength(2);
    });
  });

  describe('commit: a compare-and-set on the version', () => {
    it.each(['keep', 'replace', 'tombstone', 'purge'] as const)('%s at a stale version is refused and changes nothing', async (kind) => {
      const stored = await inserted();
      const before = await entities.raw(stored._id);
      const next = kind === 'replace' ? { kind, stored: indexed({ ...named('second'), _id: stored._id }, none()) } : { kind };
      expect(await entities.commit(stored._id, 2, next, outbox(), 'token-1')).toBe(false);
      expect(await entities.raw(stored._id)).toEqual(before);
    });

    it('is refused for an entity that does not exist', async () => {
      expect(await entities.commit(newId(), 1, { kind: 'keep' }, [], 'token-1')).toBe(false);
    });

    it('filters by what the engine serves from its key: never `{_id, __v}` where only a lone `_id` is (FerretDB)', async () => {
      const watched = Store.open({ url: process.env.MONGODB_URL!, controlDb: store.controlDbName, timeoutMs: 5000, reachMs: STACK_REACH_MS, monitorCommands: true });
      try {
        const filters: Record<string, unknown>[] = [];
        watched.client.on('commandStarted', (event) => {
          const filter = event.command.filter ?? (event.command.updates as { q: Record<string, unknown> }[] | undefined)?.[0]?.q;
          if (event.command[event.commandName] === 'entity' && filter) filters.push(filter as Record<string, unknown>);
        });
        const info = await watched.control.command({ buildInfo: 1 });
        const loneId = typeof info.ferretdbVersion === 'string';
        expect(await watched.keyLookups()).toBe(loneId ? 'lone-id' : 'compound');

        const stored = await inserted();
        expect(await watched.entities(db).commit(stored._id, 1, { kind: 'keep' }, [], 'token-1')).toBe(true);
        expect(await watched.entities(db).commit(stored._id, 1, { kind: 'keep' }, [], 'token-2')).toBe(false);
        expect(filters.length).toBeGreaterThan(0);
        for (const filter of filters) expect(Object.keys(filter)).toEqual(loneId ? ['_id'] : ['_id', '__v']);
      } finally {
        await watched.close();
      }
    });

    it('keep: the properties stay, the version and write token move on, the outbox is set', async () => {
      const stored = await inserted();
      const entries = outbox();
      expect(await entities.commit(stored._id, 1, { kind: 'keep' }, entries, 'token-1')).toBe(true);
      expect(await entities.stored(stored._id)).toEqual({ entity: stored, version: 2, outbox: entries, unsettled: expect.any(Date), deleted: false });
      expect(await entities.lastWrite(stored._id)).toBe('token-1');
    });

    it('keep without outbox entries clears the outbox delivered', async () => {
      const stored = named('first');
      await entities.insert([{ stored: indexed(stored, none()), outbox: outbox() }], 'token-0');
      expect((await entities.stored(stored._id))?.outbox).toHaveLength(1);
      expect(await entities.commit(stored._id, 1, { kind: 'keep' }, [], 'token-1')).toBe(true);
      expect(await entities.stored(stored._id)).toEqual({ entity: stored, version: 2, outbox: [], deleted: false });
    });

    it('replace: the new entity and its derived fields, at the next version', async () => {
      const stored = await inserted();
      const next = { ...named('renamed'), _id: stored._id };
      expect(await entities.commit(stored._id, 1, { kind: 'replace', stored: indexed(next, new Set(['name'])) }, [], 'token-1')).toBe(true);
      expect(await versioned(stored._id)).toEqual({ entity: next, version: 2 });
      const raw = await entities.raw(stored._id);
      expect(raw?.__q).toContain('renamed');
      expect(raw?.__q).not.toContain('first');
      expect(await entities.lastWrite(stored._id)).toBe('token-1');
    });

    it('a second commit at the same version loses: the first write stays', async () => {
      const stored = await inserted();
      const first = { ...named('one'), _id: stored._id };
      const second = { ...named('two'), _id: stored._id };
      expect(await entities.commit(stored._id, 1, { kind: 'replace', stored: indexed(first, none()) }, [], 'token-1')).toBe(true);
      expect(await entities.commit(stored._id, 1, { kind: 'replace', stored: indexed(second, none()) }, [], 'token-2')).toBe(false);
      expect(await versioned(stored._id)).toEqual({ entity: first, version: 2 });
      expect(await entities.lastWrite(stored._id)).toBe('token-1');
    });

    it('tombstone: readable by nobody, found by no value id, kept with its outbox', async () => {
      const name = value('name', { string: 'gone' });
      const stored = await inserted(entity({ name: [name], _sharing: [value('_sharing', { string: 'public' })] }));
      const entries = outbox();
      expect(await entities.commit(stored._id, 1, { kind: 'tombstone' }, entries, 'token-1')).toBe(true);
      expect(await entities.get(stored._id)).toBeUndefined();
      expect(await entities.byValueId(name._id)).toBeUndefined();
      expect(await entities.stored(stored._id)).toEqual({ entity: { _id: stored._id, properties: {} }, version: 2, outbox: entries, unsettled: expect.any(Date), deleted: true });
      const listed = await entities.list({ filters: [], sort: [], limit: 10, skip: 0, terms: [] }, ['public']);
      expect(listed.entities.map((e) => e._id)).not.toContain(stored._id);
    });

    it('purge: the document is gone', async () => {
      const stored = await inserted();
      expect(await entities.commit(stored._id, 1, { kind: 'purge' }, [], 'token-1')).toBe(true);
      expect(await entities.raw(stored._id)).toBeNull();
      expect(await entities.lastWrite(stored._id)).toBeUndefined();
    });
  });

  describe('matches: one entity against a reference_query, whatever its visibility', () => {
    const kind = (text: string) => ({ kind: [value('kind', { string: text })], size: [value('size', { number: 3 })] });

    it.each<[string, boolean]>([
      ['', true],
      ['kind.string=a', true],
      ['kind.string=b', false],
      ['kind.string.in=b,a', true],
      ['size.number.gt=2', true],
      ['size.number.gt=3', false],
      ['kind.string=a&size.number.lt=3', false],
      ['kind.string.regex=/^A$/i', true],
      ['missing.string.exists=false', true],
    ])('%j → %s', async (query, expected) => {
      // No read rights at all: a reference_query checks the target, not who sees it.
      const stored = await inserted(named('private', kind('a')));
      expect(await entities.matches(stored._id, parseReferenceQuery(query))).toBe(expected);
    });

    it('matches no other entity than the one named', async () => {
      const target = await inserted(named('t', kind('a')));
      const other = await inserted(named('o', kind('b')));
      expect(await entities.matches(other._id, parseReferenceQuery('kind.string=a'))).toBe(false);
      expect(await entities.matches(target._id, parseReferenceQuery('kind.string=a'))).toBe(true);
    });
  });
});
