import { DomainError, type ValueInput } from '@entia/domain';
import { addValues, createDatabase, createEntity, deleteValue, getEntity, settleEntity, type Tenant } from '@entia/entities';
import type { DatabaseRecord } from '@entia/store';
import { randomBytes } from 'node:crypto';
import { openDeps } from './stack';
import { stackConnected } from '../../store/test/stack-reach';

/**
 * The use cases run on their own, without HTTP or a worker: over the real stack, with their
 * dependencies given explicitly, as the API, the worker and the benchmark give them.
 */

describe('use cases without HTTP', () => {
  let deps: ReturnType<typeof openDeps>;
  let tenant: Tenant;
  let record: DatabaseRecord;

  const create = async (values: ValueInput[]) => (await createEntity(deps, tenant, values))._id;
  const defineType = (name: string) => create([{ type: '_type', reference: record.meta.entity }, { type: 'name', string: name }]);
  const define = (parent: string, name: string, type: string, formula?: string) =>
    create([
      { type: '_type', reference: record.meta.property },
      { type: '_parent', reference: parent },
      { type: 'name', string: name },
      { type: 'type', string: type },
      ...(formula ? [{ type: 'formula', string: formula }] : []),
    ]);
  const refused = async (work: Promise<unknown>) => {
    const error = await work.then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  };

  beforeAll(async () => {
    deps = openDeps();
    await stackConnected(deps.store);
    const created = await createDatabase(deps.store, `t_${randomBytes(5).toString('hex')}`, 'Owner');
    record = (await deps.store.registry.database(created.db))!;
    tenant = { name: created.db, record, entities: deps.store.entities(created.db), caller: { personId: created.personId } };
  });
  afterAll(async () => {
    await deps.store.database(tenant.name).dropDatabase();
    await deps.close();
  });

  it('writes through the one write path and settles what the entity reads elsewhere', async () => {
    const shelf = await defineType('shelf');
    const book = await defineType('book');
    await define(book, 'pages', 'number');
    await define(shelf, 'pages', 'number', '_child.book.pages SUM');
    const mine = await create([{ type: '_type', reference: shelf }]);
    await create([{ type: '_type', reference: book }, { type: '_parent', reference: mine }, { type: 'pages', number: 120 }]);

    // The write computed what reads the entity alone; what reads its children is the settle's.
    expect((await getEntity(tenant, mine)).entity.pages).toBeUndefined();
    const settled = await settleEntity(deps, tenant.name, record, mine, 0);
    expect(settled.changed).toBe(true);
    expect(((await getEntity(tenant, mine)).entity.pages as { number: number }[])[0]!.number).toBe(120);
  });

  it('refuses by the domain rules, as DomainErrors', async () => {
    const type = await defineType('note');
    const note = await create([{ type: '_type', reference: type }]);
    const created = (await getEntity(tenant, note)).entity._created as { _id: string }[];
    expect((await refused(deleteValue(deps, tenant, created[0]!._id))).kind).toBe('invalid');
    expect((await refused(createEntity(deps, { ...tenant, caller: {} }, [{ type: '_type', reference: type }]))).kind).toBe('unauthenticated');
  });

  it('a write that waits too long for its turn is a conflict, saying when to try again, and writes nothing', async () => {
    const type = await defineType('busy');
    await define(type, 'title', 'string');
    const busy = await create([{ type: '_type', reference: type }, { type: 'title', string: 'before' }]);
    const error = await deps.leases.hold(`${tenant.name}/${busy}`, () => refused(addValues(deps, tenant, busy, [{ type: 'title', string: 'after' }])));
    expect(error.kind).toBe('conflict');
    expect(error.retryAfterSeconds).toBe(1);
    expect(((await getEntity(tenant, busy)).entity.title as { string: string }[])[0]!.string).toBe('before');
  });
});
