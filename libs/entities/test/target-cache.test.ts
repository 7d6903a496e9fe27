import { labelOf, type ValueInput } from '@entia/domain';
import { TargetCache, addValues, createDatabase, createEntity, deleteEntity, getEntity, type Tenant } from '@entia/entities';
import { createRedis } from '@entia/jobs';
import type { DatabaseRecord, EntityCollection } from '@entia/store';
import { randomBytes } from 'node:crypto';
import { openDeps } from './stack';
import { stackConnected } from '../../store/test/stack-reach';

/**
 * The entities writes reference, and their owners, cached per process under their generation
 * tokens (issue 21): over the real stack, what a writer sees is as current as a database read.
 */
describe('the target cache', () => {
  let deps: ReturnType<typeof openDeps>;
  let tenant: Tenant;
  let record: DatabaseRecord;
  const redis = createRedis(process.env.REDIS_URL!, 'command', () => undefined);

  const create = async (values: ValueInput[]) => (await createEntity(deps, tenant, values))._id;
  const typeNamed = (name: string): ValueInput[] => [{ type: '_type', reference: record.meta.entity }, { type: 'name', string: name }];
  /** The collection as the cache reads it, each read's ids noted. */
  const counted = () => {
    const reads: string[][] = [];
    const entities: Pick<EntityCollection, 'many'> = { many: (ids) => (reads.push([...ids]), tenant.entities.many(ids)) };
    return { reads, entities };
  };

  beforeAll(async () => {
    deps = openDeps();
    await stackConnected(deps.store);
    const created = await createDatabase(deps.store, `t_${randomBytes(5).toString('hex')}`, 'Ada');
    record = (await deps.store.registry.database(created.db))!;
    tenant = { name: created.db, record, entities: deps.store.entities(created.db), caller: { personId: created.personId } };
  });
  afterAll(async () => {
    await deps.store.database(tenant.name).dropDatabase();
    await deps.close();
    redis.disconnect();
  });

  it('reads an entity once while nothing writes it, and again after a write, with what the write stored', async () => {
    const cache = new TargetCache(deps.generations);
    const shelf = await create([{ type: '_type', reference: record.meta.entity }, { type: 'name', string: 'shelf' }]);
    const { reads, entities } = counted();

    expect(labelOf((await cache.many(tenant.name, entities, [shelf, shelf])).get(shelf)!.properties)).toBe('shelf');
    expect(labelOf((await cache.many(tenant.name, entities, [shelf])).get(shelf)!.properties)).toBe('shelf');
    expect(reads).toEqual([[shelf]]);

    await addValues(deps, tenant, shelf, [{ type: 'name', string: 'bookcase' }]);
    expect(labelOf((await cache.many(tenant.name, entities, [shelf])).get(shelf)!.properties)).toContain('bookcase');
    expect(reads).toHaveLength(2);
  });

  it('reads again when the token lapsed (expired or evicted), then keeps the entity under a fresh one', async () => {
    const cache = new TargetCache(deps.generations);
    const note = await create([{ type: '_type', reference: record.meta.entity }, { type: 'name', string: 'note' }]);
    const { reads, entities } = counted();
    await cache.many(tenant.name, entities, [note]);
    await redis.del(deps.generations.keyOf(tenant.name, note));

    await cache.many(tenant.name, entities, [note]);
    await cache.many(tenant.name, entities, [note]);
    expect(reads).toEqual([[note], [note]]);
    expect(await redis.get(deps.generations.keyOf(tenant.name, note))).not.toBeNull();
  });

  it('leaves out a deleted entity, however recently it was kept', async () => {
    const cache = new TargetCache(deps.generations);
    const gone = await create([{ type: '_type', reference: record.meta.entity }, { type: 'name', string: 'gone' }]);
    const { entities } = counted();
    expect((await cache.many(tenant.name, entities, [gone])).has(gone)).toBe(true);
    await deleteEntity(deps, tenant, gone);
    expect((await cache.many(tenant.name, entities, [gone])).has(gone)).toBe(false);
  });

  it('keeps at most its bound, the least recently used going first', async () => {
    const cache = new TargetCache(deps.generations, 2);
    // One after another: types are created under the database's definitions lease, and three at
    // once could wait on it longer than this stack's short write wait.
    const [a, b, c] = [await create(typeNamed('a')), await create(typeNamed('b')), await create(typeNamed('c'))];
    const { reads, entities } = counted();
    await cache.many(tenant.name, entities, [a!, b!]);
    await cache.many(tenant.name, entities, [a!]);
    await cache.many(tenant.name, entities, [c!]);
    reads.length = 0;
    await cache.many(tenant.name, entities, [a!, b!, c!]);
    expect(reads).toEqual([[b]]);
  });

  it('labels a reference with the name its target has now, not the one an earlier create saw', async () => {
    const type = await create([{ type: '_type', reference: record.meta.entity }, { type: 'name', string: 'memo' }]);
    for (const [name, kind] of [['name', 'string'], ['about', 'reference']]) {
      await create([{ type: '_type', reference: record.meta.property }, { type: '_parent', reference: type }, { type: 'name', string: name! }, { type: 'type', string: kind! }]);
    }
    const topic = await create([{ type: '_type', reference: type }, { type: 'name', string: 'Engines' }]);
    const first = await create([{ type: '_type', reference: type }, { type: 'about', reference: topic }]);
    await addValues(deps, tenant, topic, [{ type: 'name', string: 'Analytical Engines' }]);
    const second = await create([{ type: '_type', reference: type }, { type: 'about', reference: topic }]);

    const label = async (id: string) => ((await getEntity(tenant, id)).entity.about as { reference: string; string?: string }[])[0]!.string;
    expect(await label(first)).toBe('Engines');
    expect(await label(second)).toContain('Analytical');
  });
});
