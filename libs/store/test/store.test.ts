import { once } from 'node:events';
import { connect, createServer, type Server } from 'node:net';
import { MongoServerSelectionError, ObjectId } from 'mongodb';
import { Store } from '@entia/store';
import { stackConnected } from './stack-reach';

// Runs against the MongoDB-protocol server of the test stack (FerretDB here, mongod where available).
const url = process.env.MONGODB_URL!;

describe('Store over a real MongoDB-protocol connection', () => {
  const dbName = `t_store_${process.pid}`;
  const store = Store.open({ url, controlDb: `t_ctl_${process.pid}`, timeoutMs: 5000, reachMs: 1000 });
  beforeAll(() => stackConnected(store));

  afterAll(async () => {
    await store.database(dbName).dropDatabase();
    await store.control.dropDatabase();
    await store.close();
  });

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('writes a document and reads it back in a separate connection', async () => {
    const _id = new ObjectId();
    await store.database(dbName).collection('probe').insertOne({ _id, name: [{ string: 'Ülle' }], n: 42 });
    const other = Store.open({ url, controlDb: 'unused_ctl', timeoutMs: 5000, reachMs: 1000 });
    try {
      await stackConnected(other);
      const found = await other.database(dbName).collection('probe').findOne({ _id });
      expect(found).toEqual({ _id, name: [{ string: 'Ülle' }], n: 42 });
    } finally {
      await other.close();
    }
  });

  it('keeps tenant databases apart', async () => {
    await store.database(dbName).collection('probe').insertOne({ marker: 'mine' });
    expect(await store.database(`${dbName}_other`).collection('probe').countDocuments({ marker: 'mine' })).toBe(0);
  });

  it('fails fast, not forever, when the server is unreachable', async () => {
    const nowhere = Store.open({ url: 'mongodb://127.0.0.1:1', controlDb: 'x_ctl', timeoutMs: 5000, reachMs: 300 });
    // Bounded by reachMs (server selection gives up), not by the query time limit: the error says
    // which of the two ended the wait, so no clock is read here.
    await expect(nowhere.ping()).rejects.toThrow(MongoServerSelectionError);
    await nowhere.close();
  });

  it('started before its server: tries again until it answers, then serves, told once of each', async () => {
    const target = new URL(url);
    // A port nothing listens on yet; later, a relay to the test stack's server opens on it.
    const reserve = createServer().listen(0, '127.0.0.1');
    await once(reserve, 'listening');
    const { port } = reserve.address() as { port: number };
    reserve.close();
    const told: string[] = [];
    const late = Store.open({
      url: `mongodb://127.0.0.1:${port}/?directConnection=true`,
      controlDb: `t_late_${process.pid}`,
      timeoutMs: 5000,
      reachMs: 300,
      events: { unreachable: (error) => told.push(`unreachable: ${(error as Error).message}`), connected: (attempts) => told.push(`connected after ${attempts} attempts`) },
    });
    let relay: Server | undefined;
    try {
      await expect(late.ping()).rejects.toThrow(/ECONNREFUSED/);
      // Long enough for several attempts to fail: the driver alone would have closed the client for good after the first.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(late.connectionState).toMatchObject({ kind: 'connecting', attempts: expect.any(Number) });
      expect((late.connectionState as { attempts: number }).attempts).toBeGreaterThan(1);
      relay = createServer((client) => client.pipe(connect(Number(target.port), target.hostname).on('error', () => client.destroy())).pipe(client)).listen(port, '127.0.0.1');
      await late.whenConnected();
      await expect(late.ping()).resolves.toBeUndefined();
      expect(late.connectionState.kind).toBe('connected');
      expect(told).toEqual([expect.stringMatching(/^unreachable: connect ECONNREFUSED/), expect.stringMatching(/^connected after \d+ attempts$/)]);
    } finally {
      await late.close();
      relay?.close();
    }
    expect(late.connectionState.kind).toBe('closed');
  });
});
