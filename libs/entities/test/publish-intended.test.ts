import type { ChangeRecord } from '@entia/domain';
import { FORGET_AFTER_MS, createDatabase, createEntity, deleteEntity, publishIntended, settleEntity, type Tenant } from '@entia/entities';
import { randomBytes } from 'node:crypto';
import { openDeps } from './stack';
import { stackConnected } from '../../store/test/stack-reach';

// Issue 18: a creation's event is intended before the insert and published after it; what a
// process that died in between left, the worker publishes — if the entity was stored.
describe('publishIntended', () => {
  let deps: ReturnType<typeof openDeps>;
  let tenant: Tenant;
  let type: string;

  beforeAll(async () => {
    deps = openDeps();
    await stackConnected(deps.store);
    const created = await createDatabase(deps.store, `t_${randomBytes(5).toString('hex')}`, 'Owner');
    const record = (await deps.store.registry.database(created.db))!;
    tenant = { name: created.db, record, entities: deps.store.entities(created.db), caller: { personId: created.personId } };
    type = (await createEntity(deps, tenant, [{ type: '_type', reference: record.meta.entity }, { type: 'name', string: 'note' }]))._id;
  });
  afterAll(async () => {
    await deps.store.database(tenant.name).dropDatabase();
    await deps.close();
  });

  const creation = (entity: string, at = new Date().toISOString()): ChangeRecord => ({
    key: `${entity}:1`,
    entity,
    type,
    kind: 'created',
    version: 1,
    at,
    by: tenant.caller.personId!,
    properties: ['_type'],
    after: { properties: {}, partial: [] },
  });
  const logged = async (entity: string) => (await deps.changes.read(tenant.name, '0-0', 10_000)).filter((entry) => entry.record.entity === entity).length;

  it('publishes the intent of an entity that was stored, and of one deleted since', async () => {
    // Stored, then "the process died": the intent stays, nothing was published.
    const kept = (await createEntity({ ...deps, changes: { intend: deps.changes.intend.bind(deps.changes), publish: () => Promise.reject(new Error('died')) } } as never, tenant, [{ type: '_type', reference: type }]))._id;
    const gone = (await createEntity(deps, tenant, [{ type: '_type', reference: type }]))._id;
    await deleteEntity(deps, tenant, gone);
    // Settled: its tombstone purged; only its history says it existed.
    await settleEntity(deps, tenant.name, tenant.record, gone, 0);
    expect(await deps.store.entities(tenant.name).stored(gone)).toBeUndefined();
    await deps.changes.intend(tenant.name, [creation(gone)]);
    const before = await logged(gone);
    expect(await logged(kept)).toBe(0);
    expect(await publishIntended(deps, 0)).toBeGreaterThanOrEqual(2);
    expect(await logged(kept)).toBe(1);
    // Published before: the log keeps it once.
    expect(await logged(gone)).toBe(Math.max(before, 1));
    expect(await deps.changes.intended(tenant.name, 0, 100)).toEqual([]);
  });

  it('keeps the intent of an entity not (yet) stored, and forgets it once its insert must have failed', async () => {
    const never = randomBytes(12).toString('hex');
    await deps.changes.intend(tenant.name, [creation(never)]);
    await publishIntended(deps, 0);
    expect((await deps.changes.intended(tenant.name, 0, 100)).map((record) => record.entity)).toEqual([never]);
    const old = randomBytes(12).toString('hex');
    await deps.changes.intend(tenant.name, [creation(old, new Date(Date.now() - FORGET_AFTER_MS - 1000).toISOString())]);
    await publishIntended(deps, 0);
    expect((await deps.changes.intended(tenant.name, 0, 100)).map((record) => record.entity)).toEqual([never]);
    expect(await logged(never)).toBe(0);
    expect(await logged(old)).toBe(0);
    await deps.changes.forget(tenant.name, [`${never}:1`]);
  });
});
