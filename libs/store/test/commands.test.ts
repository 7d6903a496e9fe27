import { ObjectId } from 'mongodb';
import { COUNTED_COMMANDS, Store, commandKind, commandLabel, countCommands } from '@entia/store';
import { STACK_REACH_MS } from './stack-reach';

describe('command names as labels and kinds', () => {
  it.each([
    ['find', 'find', 'read'],
    ['getMore', 'getMore', 'read'],
    ['aggregate', 'aggregate', 'read'],
    ['count', 'count', 'read'],
    ['distinct', 'distinct', 'read'],
    ['insert', 'insert', 'write'],
    ['update', 'update', 'write'],
    ['delete', 'delete', 'write'],
    ['findAndModify', 'findAndModify', 'write'],
    ['hello', 'hello', 'probe'],
    ['ping', 'ping', 'probe'],
    ['createIndexes', 'createIndexes', 'other'],
    ['endSessions', 'endSessions', 'other'],
    ['saslStart', 'other', 'other'],
    ['somethingNew', 'other', 'other'],
    ['__proto__', 'other', 'other'],
    ['toString', 'other', 'other'],
  ])('%s: label %s, kind %s', (name, label, kind) => {
    expect(commandLabel(name)).toBe(label);
    expect(commandKind(name)).toBe(kind);
  });

  it('labels a bounded set of names', () => {
    const labels = new Set(Array.from({ length: 1000 }, (_, i) => commandLabel(`command${i}`)));
    expect([...labels]).toEqual(['other']);
    expect(COUNTED_COMMANDS.size).toBeLessThan(40);
  });
});

// Against the test stack's MongoDB-protocol server.
describe('Store.onCommand', () => {
  const dbName = `t_cmd_${process.pid}`;
  // reachMs 1000: the driver's monitor says hello every 500 ms.
  const store = Store.open({ url: process.env.MONGODB_URL!, controlDb: `t_cmdctl_${process.pid}`, timeoutMs: 5000, reachMs: STACK_REACH_MS, monitorCommands: true });
  afterAll(async () => {
    await store.database(dbName).dropDatabase();
    await store.close();
  });

  it('names each command sent, never its document; stops when asked', async () => {
    const seen: unknown[][] = [];
    const stop = store.onCommand((...args) => seen.push(args));
    const collection = store.database(dbName).collection('probe');
    await collection.insertOne({ secret: 'hunter2' });
    await collection.findOne({ _id: new ObjectId() });
    await collection.updateOne({ secret: 'hunter2' }, { $set: { n: 1 } });
    stop();
    await collection.findOne({});
    expect(seen).toEqual([['insert'], ['find'], ['update']]);
  });

  it('does not count the driver heartbeats', async () => {
    const names: string[] = [];
    const stop = store.onCommand((name) => names.push(name));
    await store.database(dbName).collection('probe').findOne({});
    // Three heartbeat intervals with nothing asked.
    await new Promise((resolve) => setTimeout(resolve, 1600));
    stop();
    expect(names).toEqual(['find']);
  });

  it('counts on a counter by label', async () => {
    const counts: Record<string, number> = {};
    const stop = countCommands(store, { inc: ({ command }) => void (counts[command] = (counts[command] ?? 0) + 1) });
    await store.database(dbName).collection('probe').findOne({});
    await store.database(dbName).command({ buildInfo: 1 });
    await store.database(dbName).command({ connectionStatus: 1 });
    stop();
    expect(counts).toEqual({ find: 1, buildInfo: 1, other: 1 });
  });

  it('sees nothing unless monitoring was asked for', async () => {
    const quiet = Store.open({ url: process.env.MONGODB_URL!, controlDb: `t_cmdctl_${process.pid}`, timeoutMs: 5000, reachMs: STACK_REACH_MS });
    const seen: string[] = [];
    quiet.onCommand((name) => seen.push(name));
    await quiet.database(dbName).collection('x').findOne({});
    await quiet.close();
    expect(seen).toEqual([]);
  });
});
