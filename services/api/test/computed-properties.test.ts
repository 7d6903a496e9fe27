import { MIGRATIONS } from '@entia/store';
import { ObjectId } from 'mongodb';
import { startWorker, type RunningWorker } from '@entia/worker';
import { pino } from 'pino';
import request from 'supertest';
import { eventually } from './eventually';
import { testApi, type TestApi } from './support';
import { testTenant, type Person, type TestTenant } from './tenant';

interface Value {
  _id: string;
  type: string;
  created?: { at: string; by: string };
  reference?: string;
  string?: string;
  datetime?: string;
  number?: number;
  property_type?: string;
  entity_type?: string;
  inherited?: true;
}
type Entity = { _id: string } & Record<string, Value[]>;

// Issue 32: what the server computes from an entity's values (`_changed`, `_reference`) and how it
// shows right lists (cumulative), on the real stack with the worker running.
describe('computed system properties and cumulative right lists', () => {
  jest.setTimeout(120_000);

  let api: TestApi;
  let worker: RunningWorker;
  let t: TestTenant;
  let editor: Person;
  let stranger: Person;
  let person: string;
  let book: string;
  let shelf: string;
  let invoice: string;
  let row: string;

  beforeAll(async () => {
    api = testApi();
    worker = startWorker(api.deps.config, pino({ level: 'silent' }));
    t = await testTenant(api);
    [editor, stranger] = [await t.newPerson('Eddie Editor'), await t.newPerson('Stan Stranger')];
    person = t.types.person;
    shelf = await t.defineType('shelf', [{ name: 'name', type: 'string' }]);
    book = await t.defineType('book', [
      { name: 'name', type: 'string' },
      { name: 'author', type: 'reference' },
      { name: 'sequel', type: 'reference' },
    ]);
    invoice = await t.defineType('invoice', [{ name: 'total', type: 'number', formula: '_child.row.amount SUM' }]);
    row = await t.defineType('row', [{ name: 'amount', type: 'number' }]);
  });
  afterAll(async () => {
    await worker.close();
    await t.close();
    await api.close();
  });

  const get = async (id: string, by: Person = t.owner): Promise<Entity> => {
    const res = await request(api.app).get(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth);
    if (res.status !== 200) throw new Error(`GET ${id}: ${res.status}`);
    return res.body.entity as Entity;
  };
  const list = (query: string, by: Person = t.owner) => request(api.app).get(`/api/${t.db}/entity?${query}`).set('Authorization', by.auth);
  const post = (id: string, values: object[], by: Person = t.owner) => request(api.app).post(`/api/${t.db}/entity/${id}`).set('Authorization', by.auth).send(values);
  const created = async (values: object[], by: Person = t.owner) => {
    const res = await t.create(values, by);
    if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body._id as string;
  };
  const settled = (id: string) =>
    eventually(
      async () => (await request(api.app).get(`/api/${t.db}/entity/${id}/pending`).set('Authorization', t.owner.auth)).body,
      (body) => body.pending === false,
    );

  describe('_changed: when and by whom the entity last changed', () => {
    it('is set by every write of a person, not by the worker recomputing derived values; filterable and sortable', async () => {
      const id = await created([{ type: '_type', reference: invoice }, { type: '_editor', reference: editor.id }]);
      const first = await get(id);
      expect(first._changed).toEqual([expect.objectContaining({ datetime: first._created![0]!.datetime, reference: t.owner.id })]);

      await created([{ type: '_type', reference: row }, { type: '_parent', reference: id }, { type: 'amount', number: 5 }]);
      await settled(id);
      const summed = await get(id);
      expect(summed.total![0]!.number).toBe(5);
      // The worker's sum is not a change anybody made.
      expect(summed._changed).toEqual(first._changed);

      const before = new Date().toISOString();
      expect((await post(id, [{ type: '_sharing', string: 'domain' }], editor)).status).toBe(403);
      // A shelf of the editor's own: setting _parent needs _expander on it.
      const editorsShelf = await created([{ type: '_type', reference: shelf }], editor);
      expect((await post(id, [{ type: '_parent', reference: editorsShelf }], editor)).status).toBe(200);
      const changed = await get(id);
      expect(changed._changed).toEqual([{ ...first._changed![0]!, datetime: expect.any(String), reference: editor.id, created: expect.any(Object) }]);
      expect(changed._changed![0]!.datetime! >= before).toBe(true);

      const recent = await list(`_type.reference=${invoice}&_changed.datetime.gte=${encodeURIComponent(before)}&_changed.reference=${editor.id}`);
      expect(recent.body.entities.map((e: Entity) => e._id)).toEqual([id]);
      const newestFirst = await list(`_type.reference=${invoice}&sort=-_changed.datetime&props=_changed`);
      expect(newestFirst.status).toBe(200);
      expect(newestFirst.body.entities[0]._id).toBe(id);
    });

    it('cannot be written, and is no change of its own in history', async () => {
      const id = await created([{ type: '_type', reference: shelf }, { type: 'name', string: 'Top' }]);
      for (const values of [[{ type: '_changed', datetime: '2020-01-01T00:00:00Z' }], [{ type: '_reference', reference: id }]]) {
        const refused = await post(id, values);
        expect(refused.status).toBe(400);
      }
      expect((await post(id, [{ type: 'name', string: 'Top shelf' }])).status).toBe(200);
      const history = await request(api.app).get(`/api/${t.db}/entity/${id}/history`).set('Authorization', t.owner.auth);
      expect(history.body.changes.map((change: { type: string }) => change.type)).not.toContain('_changed');
    });
  });

  describe('_reference: who points at an entity, and through what', () => {
    let austen: string;
    let emma: string;
    let persuasion: string;

    beforeAll(async () => {
      austen = await created([{ type: '_type', reference: person }, { type: 'name', string: 'Jane Austen' }, { type: '_sharing', string: 'domain' }]);
      persuasion = await created([{ type: '_type', reference: book }, { type: 'name', string: 'Persuasion' }, { type: 'author', reference: austen }]);
      emma = await created([{ type: '_type', reference: book }, { type: 'name', string: 'Emma' }, { type: 'author', reference: austen }, { type: 'sequel', reference: persuasion }]);
      // A child of Jane Austen's entity through _parent only: not one of her referrers.
      await created([{ type: '_type', reference: shelf }, { type: '_parent', reference: austen }]);
    });

    it('lists every reference of the entity’s own properties, with its label, property and target type, under the value’s _id', async () => {
      const shown = await get(emma);
      expect(shown._reference).toEqual([
        { _id: shown.author![0]!._id, type: '_reference', reference: austen, property_type: 'author', string: 'Jane Austen', entity_type: 'person', created: shown.author![0]!.created },
        { _id: shown.sequel![0]!._id, type: '_reference', reference: persuasion, property_type: 'sequel', string: 'Persuasion', entity_type: 'book', created: shown.sequel![0]!.created },
      ]);
    });

    it('finds the referrers of an entity in one query, grouped by type as Entu’s client asks', async () => {
      const referrers = await list(`_reference.reference=${austen}&props=name`);
      expect(referrers.body.entities.map((e: Entity) => e._id).sort()).toEqual([emma, persuasion].sort());
      const grouped = await list(`_reference.reference=${austen}&_reference.property_type.ne=_parent&group=_type.reference&props=_type`);
      expect(grouped.status).toBe(200);
      expect(grouped.body.entities).toEqual([{ _type: [expect.objectContaining({ reference: book, string: 'book' })], _count: 2 }]);
      const through = await list(`_reference.reference=${persuasion}&_reference.property_type=sequel`);
      expect(through.body.entities.map((e: Entity) => e._id)).toEqual([emma]);
      const ofPeople = await list(`_reference.entity_type=person&_type.reference=${book}&props=name`);
      expect(ofPeople.body.count).toBe(2);
    });

    it('never finds an entity the caller cannot read', async () => {
      const found = await list(`_reference.reference=${austen}`, stranger);
      expect(found.status).toBe(200);
      expect(found.body.count).toBe(0);
    });

    it('follows a rename of the target (the worker relabels the references)', async () => {
      expect((await post(austen, [{ type: 'name', string: 'J. Austen' }])).status).toBe(200);
      const relabelled = await eventually(() => get(emma), (entity) => entity._reference?.[0]?.string === 'J. Austen');
      expect(relabelled.author![0]!.string).toBe('J. Austen');
    });

    it('refuses filters on fields it does not have and hostile ones, naming the parameter', async () => {
      for (const [query, parameter] of [
        ['_reference.number=1', '_reference.number'],
        ['_reference.property_type.gt=a', '_reference.property_type.gt'],
        ['title.property_type=x', 'title.property_type'],
        ['_reference.__proto__=x', '_reference.__proto__'],
      ]) {
        const res = await list(`_type.reference=${book}&${query}`);
        expect({ query, status: res.status, parameters: res.body.errors?.map((e: { parameter: string }) => e.parameter) }).toEqual({ query, status: 400, parameters: [parameter] });
      }
    });
  });

  describe('right lists as they are meant: cumulative', () => {
    it('lists the holders of higher levels at each lower one, as the very values they are, and the inherited ones apart', async () => {
      const top = await created([{ type: '_type', reference: shelf }, { type: '_editor', reference: editor.id }]);
      const child = await created([{ type: '_type', reference: shelf }, { type: '_parent', reference: top }, { type: '_inheritrights', boolean: true }]);
      const shown = await eventually(() => get(child), (entity) => (entity._editor ?? []).some((value) => value.reference === editor.id));
      const own = shown._owner!.find((value) => value.reference === t.owner.id)!;
      // The owner is listed under every lower level by its _owner value (same _id), marked where it is stored.
      for (const level of ['_editor', '_expander', '_viewer']) {
        expect(shown[level]).toContainEqual({ ...own, type: level, property_type: '_owner' });
      }
      // The parent's editor, inherited: shown in the lists and apart.
      expect(shown._editor).toContainEqual(expect.objectContaining({ reference: editor.id, inherited: true }));
      expect(shown._parent_editor!.map((value) => value.reference)).toContain(editor.id);
      expect(shown._parent_viewer!.map((value) => value.reference)).toEqual(expect.arrayContaining([editor.id]));
      // props of a lower list reads the levels above it too.
      const narrow = await request(api.app).get(`/api/${t.db}/entity/${child}?props=_viewer.reference`).set('Authorization', t.owner.auth);
      expect(narrow.body.entity._viewer).toContainEqual({ _id: own._id, reference: t.owner.id });
    });

    it('an owner is found by a filter on a lower level (Entu’s parents picker: _expander.reference=<me>)', async () => {
      const mine = await created([{ type: '_type', reference: shelf }, { type: 'name', string: 'Mine' }]);
      const found = await list(`_type.reference=${shelf}&_expander.reference=${t.owner.id}&props=name`);
      expect(found.body.entities.map((e: Entity) => e._id)).toContain(mine);
    });

    it('deleting an implied entry deletes the right it stands for, under the rules of that right', async () => {
      const id = await created([{ type: '_type', reference: shelf }, { type: '_editor', reference: editor.id }]);
      const shown = await get(id);
      const implied = shown._viewer!.find((value) => value.property_type === '_owner')!;
      // The last owner cannot go, wherever its value is shown.
      expect((await request(api.app).delete(`/api/${t.db}/property/${implied._id}`).set('Authorization', t.owner.auth)).status).toBe(400);
      const editorAsViewer = shown._viewer!.find((value) => value.reference === editor.id)!;
      expect(editorAsViewer.property_type).toBe('_editor');
      expect((await request(api.app).delete(`/api/${t.db}/property/${editorAsViewer._id}`).set('Authorization', t.owner.auth)).status).toBe(200);
      expect((await get(id))._editor!.map((value) => value.reference)).toEqual([t.owner.id]);
    });
  });

  describe('entities stored before these properties existed', () => {
    it('get them once migration 3 has marked them and the worker has refreshed them', async () => {
      const austen = await created([{ type: '_type', reference: person }, { type: 'name', string: 'Anne Elliot' }, { type: '_sharing', string: 'domain' }]);
      const id = await created([{ type: '_type', reference: book }, { type: 'author', reference: austen }]);
      const entities = api.deps.store.database(t.db).collection('entity');
      // As an older version stored it (nobody has read it through the API yet: nothing cached).
      await entities.updateOne({ _id: new ObjectId(id) }, { $unset: { _changed: '', _reference: '' } });
      const bare = await api.deps.store.entities(t.db).get(id);
      expect(Object.keys(bare!.entity.properties)).not.toContain('_reference');

      const progress: string[] = [];
      await MIGRATIONS.find((migration) => migration.version === 3)!.up({
        store: api.deps.store,
        databases: [t.db],
        progress: (event) => progress.push(event.message),
        keepLock: async () => undefined,
        signal: new AbortController().signal,
        leases: api.deps.leases,
      });
      expect(progress).toEqual([expect.stringMatching(/^\d+ entities marked for the worker to refresh$/)]);
      const refreshed = await eventually(() => get(id), (entity) => entity._reference !== undefined && entity._changed !== undefined, 60_000);
      expect(refreshed._reference).toEqual([expect.objectContaining({ reference: austen, property_type: 'author', string: 'Anne Elliot' })]);
      expect(refreshed._changed![0]!.datetime).toBe(refreshed._created![0]!.datetime);
    });
  });
});
