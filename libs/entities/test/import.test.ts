import { DomainError, type ValueInput } from '@entia/domain';
import { ObjectId } from 'mongodb';
import { ImportSession, createDatabase, createEntity, entityBuilder, getEntity, importEntities, settleEntity, type ImportInput, type Tenant } from '@entia/entities';
import type { DatabaseRecord } from '@entia/store';
import { randomBytes } from 'node:crypto';
import { openDeps } from './stack';
import { stackConnected } from '../../store/test/stack-reach';

/** The bulk use case over the real stack: many creates, checked and stored as one create each would be. */
describe('importEntities', () => {
  let deps: ReturnType<typeof openDeps>;
  let tenant: Tenant;
  let record: DatabaseRecord;

  const create = async (values: ValueInput[]) => (await createEntity(deps, tenant, values))._id;
  const defineType = (name: string) => create([{ type: '_type', reference: record.meta.entity }, { type: 'name', string: name }]);
  const define = (parent: string, name: string, type: string, more: ValueInput[] = []) =>
    create([{ type: '_type', reference: record.meta.property }, { type: '_parent', reference: parent }, { type: 'name', string: name }, { type: 'type', string: type }, ...more]);
  const refused = async (work: Promise<unknown>) => {
    const error = await work.then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  };
  const valuesOf = async (id: string, name: string) => (await getEntity(tenant, id)).entity[name] as { string?: string; number?: number; reference?: string; datetime?: string }[];
  let author: string;
  let book: string;

  beforeAll(async () => {
    deps = openDeps();
    await stackConnected(deps.store);
    const created = await createDatabase(deps.store, `t_${randomBytes(5).toString('hex')}`, 'Owner');
    record = (await deps.store.registry.database(created.db))!;
    tenant = { name: created.db, record, entities: deps.store.entities(created.db), caller: { personId: created.personId } };
    author = await defineType('author');
    await define(author, 'name', 'string', [{ type: 'search', boolean: true }]);
    book = await defineType('book');
    await define(book, 'title', 'string');
    await define(book, 'author', 'reference');
    await define(book, 'pages', 'number');
  });
  afterAll(async () => {
    await deps.store.database(tenant.name).dropDatabase();
    await deps.close();
  });

  it('stores each entity as a create does, checked against the entities already stored, in batches', async () => {
    const createdAt = '2020-02-02T10:00:00.000Z';
    const [ann, bob] = await importEntities(deps, tenant, [
      { values: [{ type: '_type', reference: author }, { type: 'name', string: 'Ann Lee' }], createdAt },
      { values: [{ type: '_type', reference: author }, { type: 'name', string: 'Bob Roe' }] },
    ]);
    const books = await importEntities(
      deps,
      tenant,
      [ann!, bob!, ann!].map((id, i) => ({ values: [{ type: '_type', reference: book }, { type: 'title', string: `Book ${i}` }, { type: 'author', reference: id }] })),
      { batch: 2 },
    );
    expect(books).toHaveLength(3);

    // Its rights and provenance as a create gives them, at the time given.
    expect((await valuesOf(ann!, '_owner')).map((value) => value.reference)).toEqual([tenant.caller.personId]);
    expect((await valuesOf(ann!, '_created'))[0]!.datetime).toBe(createdAt);
    // References labelled, in every batch.
    expect(await Promise.all(books.map(async (id) => (await valuesOf(id, 'author'))[0]!.string))).toEqual(['Ann Lee', 'Bob Roe', 'Ann Lee']);
    expect((await valuesOf(books[2]!, 'title'))[0]!.string).toBe('Book 2');

    // Indexed as a create indexes: the same access list and search tokens as an author created alone.
    const alone = await create([{ type: '_type', reference: author }, { type: 'name', string: 'Ann Lee' }]);
    const [imported, created] = await Promise.all([tenant.entities.raw(ann!), tenant.entities.raw(alone)]);
    expect(imported!.__read).toEqual(created!.__read);
    expect([...imported!.__q].sort()).toEqual([...created!.__q].sort());
    expect(imported!.__q).toContain('lee');
  });

  it('leaves the work a create leaves: the outbox in the document, the entity marked unsettled there, settled by the worker', async () => {
    const shelf = await defineType('shelf');
    await define(shelf, 'pages', 'number', [{ type: 'formula', string: '_child.book.pages SUM' }]);
    const mine = await create([{ type: '_type', reference: shelf }]);
    const [child] = await importEntities(deps, tenant, [{ values: [{ type: '_type', reference: book }, { type: '_parent', reference: mine }, { type: 'pages', number: 120 }] }]);

    const stored = (await tenant.entities.stored(child!))!;
    expect([stored.outbox.length > 0, stored.unsettled]).toEqual([true, expect.any(Date)]);
    expect((await tenant.entities.unsettled(new Date(), 1000)).map(({ id }) => id)).toContain(child);
    await settleEntity(deps, tenant.name, record, child!, 0, { own: true });
    await settleEntity(deps, tenant.name, record, mine, 0);
    expect((await valuesOf(mine, 'pages'))[0]!.number).toBe(120);
  });

  it('refuses an input as a create would, saying which, and stores nothing of its batch', async () => {
    const missing = '5f1d7a0c9b1e8a0012345699';
    const error = await refused(
      importEntities(deps, tenant, [
        { values: [{ type: '_type', reference: author }, { type: 'name', string: 'Kept out' }] },
        { values: [{ type: '_type', reference: book }, { type: 'author', reference: missing }] },
      ]),
    );
    expect(error.kind).toBe('invalid');
    expect(error.errors.map((field) => field.pointer)).toEqual(['/1/values/1/reference']);
    const names = (await tenant.entities.ofType(author)).map((entity) => entity.properties.name?.[0]?.string);
    expect(names).not.toContain('Kept out');
  });

  it('refuses property definitions and callers who are not signed in', async () => {
    const definition = [{ type: '_type', reference: record.meta.property }, { type: '_parent', reference: book }, { type: 'name', string: 'isbn' }, { type: 'type', string: 'string' }];
    expect((await refused(importEntities(deps, tenant, [{ values: definition }]))).kind).toBe('invalid');
    expect((await refused(importEntities(deps, { ...tenant, caller: {} }, [{ values: [{ type: '_type', reference: author }] }]))).kind).toBe('unauthenticated');
  });

  it('entityBuilder: an entity as the import would store it, built against the targets it was given, written nowhere', async () => {
    const [ann] = await importEntities(deps, tenant, [{ values: [{ type: '_type', reference: author }, { type: 'name', string: 'Ann Built' }] }]);
    const build = await entityBuilder(deps, tenant, [ann!]);
    const stored = await build({ values: [{ type: '_type', reference: book }, { type: 'title', string: 'Built' }, { type: 'author', reference: ann! }] });
    expect(stored.entity.properties.author![0]!.string).toBe('Ann Built');
    expect(stored.index.read).toContain(tenant.caller.personId);
    expect(await tenant.entities.get(stored.entity._id)).toBeUndefined();
    // Only what it was given: another entity is not found.
    const [bob] = await importEntities(deps, tenant, [{ values: [{ type: '_type', reference: author }, { type: 'name', string: 'Bob Built' }] }]);
    expect((await refused(build({ values: [{ type: '_type', reference: book }, { type: 'author', reference: bob! }] }))).kind).toBe('invalid');
  });

  it('a session: later imports of a run check against the entities it created, as they were, without reading them again', async () => {
    const session = new ImportSession();
    const [ann] = await importEntities(deps, tenant, [{ values: [{ type: '_type', reference: author }, { type: 'name', string: 'Ann Session' }] }], { session });
    // Gone from the database behind the session's back: only the session's copy still knows it.
    await deps.store.database(tenant.name).collection('entity').deleteOne({ _id: new ObjectId(ann!) });
    const citing = (): ImportInput[] => [{ values: [{ type: '_type', reference: book }, { type: 'author', reference: ann! }] }];
    const [cited] = await importEntities(deps, tenant, citing(), { session });
    expect((await valuesOf(cited!, 'author'))[0]!.string).toBe('Ann Session');
    expect((await refused(importEntities(deps, tenant, citing()))).kind).toBe('invalid');
  });
});
