import { SchemaGate, type GateState } from '@entia/entities';
import { ObjectId } from 'mongodb';
import { SCHEMA_VERSION, Store } from '@entia/store';
import { randomBytes } from 'node:crypto';
import { stackConnected } from '../../store/test/stack-reach';

/**
 * The schema gate of the API and the worker (issue 22) over a real MongoDB-protocol server: what
 * it says while the stored schema is behind, unreadable or newer, and that it opens by itself once
 * the version is recorded, logging each new state once.
 */
describe('SchemaGate', () => {
  const url = process.env.MONGODB_URL!;
  const stores: Store[] = [];
  const gates: SchemaGate[] = [];
  afterAll(async () => {
    for (const gate of gates) gate.stop();
    for (const store of stores) {
      if (store.controlDbName.startsWith('t_gate_')) await store.control.dropDatabase().catch(() => undefined);
      await store.close();
    }
  });

  function logged() {
    const lines: [string, string][] = [];
    const log = (level: string) => (_details: object, message: string) => void lines.push([level, message]);
    return { lines, log: { error: log('error'), warn: log('warn'), info: log('info') } };
  }

  async function controlWith(version: number | undefined): Promise<Store> {
    const store = Store.open({ url, controlDb: `t_gate_${randomBytes(5).toString('hex')}`, timeoutMs: 5000, reachMs: 1000 });
    stores.push(store);
    await stackConnected(store);
    const id = () => new ObjectId().toHexString();
    await store.registry.register({ _id: 'gated_db', meta: { entity: id(), property: id(), person: id(), database: id(), webhook: id() }, databaseEntity: id(), createdAt: new Date() });
    if (version !== undefined) await store.control.collection('schema').insertOne({ _id: 'version' as never, version, applied: [] });
    return store;
  }

  const until = async (gate: SchemaGate, accept: (state: GateState) => boolean) => {
    while (!accept(gate.state)) await new Promise((resolve) => setTimeout(resolve, 20));
    return gate.state;
  };

  it('behind: holds back with the reason, then opens by itself once migrate has recorded the version', async () => {
    const store = await controlWith(0);
    const { lines, log } = logged();
    const changes: GateState['kind'][] = [];
    const gate = new SchemaGate(store, log, { intervalMs: 50, onChange: (state) => changes.push(state.kind) }).start();
    gates.push(gate);
    expect(gate.reason).toBe('starting: the schema version has not been read yet');
    const behind = await until(gate, (state) => state.kind === 'behind');
    expect(behind).toEqual({ kind: 'behind', stored: 0, needed: SCHEMA_VERSION, reason: `schema version 0, this version needs ${SCHEMA_VERSION}: run entia-admin migrate` });
    expect(gate.reason).toBe(behind.kind === 'behind' ? behind.reason : undefined);

    let opened = false;
    void gate.whenServing().then(() => (opened = true));
    await store.control.collection('schema').updateOne({ _id: 'version' as never }, { $set: { version: SCHEMA_VERSION } });
    await gate.whenServing();
    expect([opened, gate.reason, gate.state]).toEqual([true, undefined, { kind: 'serving', stored: SCHEMA_VERSION, needed: SCHEMA_VERSION }]);
    // Each state once, however many times it was read again.
    expect(changes).toEqual(['behind', 'serving']);
    expect(lines).toEqual([
      ['error', `schema version 0, this version needs ${SCHEMA_VERSION}: run entia-admin migrate`],
      ['info', 'schema version current: serving'],
    ]);
  });

  it('newer: serves, with a warning (an older release after an upgrade)', async () => {
    const store = await controlWith(SCHEMA_VERSION + 1);
    const { lines, log } = logged();
    const gate = new SchemaGate(store, log).start();
    gates.push(gate);
    await gate.whenServing();
    expect(gate.state).toEqual({ kind: 'serving', stored: SCHEMA_VERSION + 1, needed: SCHEMA_VERSION, warning: expect.stringMatching(/is newer than this version's/) });
    expect(lines.map(([level]) => level)).toEqual(['warn']);
  });

  it('unreachable: not served, never taken for an old schema, said once', async () => {
    const store = Store.open({ url: 'mongodb://127.0.0.1:1', controlDb: 'x_gate_ctl', timeoutMs: 300, reachMs: 300 });
    stores.push(store);
    const { lines, log } = logged();
    const gate = new SchemaGate(store, log, { intervalMs: 50 }).start();
    gates.push(gate);
    await until(gate, (state) => state.kind === 'unknown' && state.reason !== 'starting: the schema version has not been read yet');
    expect(gate.reason).toMatch(/^starting: the schema version could not be read \(.+\)$/);
    // A few more attempts fail meanwhile: still one line.
    await until(gate, () => lines.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(gate.state.kind).toBe('unknown');
    expect(lines.map(([level]) => level)).toEqual(['warn']);
  });
});
