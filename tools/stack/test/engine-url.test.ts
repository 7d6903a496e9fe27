import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFerretDb, type ManagedServer } from '@entia/stack';
import { pingTargets, waitForMongoUrl } from '../src/engine-url';
import { SlowEngineRelay } from './slow-engine-relay';

// `npm start` with MONGODB_URL waits for that server to answer a ping before `entia-admin
// migrate`, a short-lived command, runs (issue 31): however slow a server that takes connections
// is, and not for ever for one that takes none.

jest.setTimeout(120_000);

describe('pingTargets', () => {
  test.each<[string, ReturnType<typeof pingTargets>]>([
    ['mongodb://127.0.0.1:27018/', { hosts: [{ host: '127.0.0.1', port: 27018 }] }],
    ['mongodb://localhost', { hosts: [{ host: 'localhost', port: 27017 }] }],
    ['mongodb://u%40x:p%2F%3Fw@db1:1,db2:2/entia?replicaSet=rs0', { hosts: [{ host: 'db1', port: 1 }, { host: 'db2', port: 2 }] }],
    ['mongodb://user:secret@[::1]:27019/?authSource=admin', { hosts: [{ host: '::1', port: 27019 }] }],
    ['mongodb://db:27017/?tls=true', { unpingable: 'TLS' }],
    ['mongodb://db:27017/?SSL=TRUE', { unpingable: 'TLS' }],
    ['mongodb://db:27017/?tls=false', { hosts: [{ host: 'db', port: 27017 }] }],
    ['mongodb+srv://user:secret@cluster0.example.net/', { unpingable: 'a DNS seed list (mongodb+srv)' }],
    ['mongodb://%2Ftmp%2Fmongodb-27017.sock', { unpingable: 'a Unix socket' }],
    ['postgres://127.0.0.1:5432/', { unpingable: 'not a mongodb:// URL' }],
  ])('%s', (url, expected) => {
    expect(pingTargets(url)).toEqual(expected);
  });
});

/** A port nothing listens on: taken from a server closed again. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('a port that takes no connection is a failure naming the address, never the credentials', async () => {
  const lines: string[] = [];
  const port = await closedPort();
  await expect(
    waitForMongoUrl(`mongodb://entia:hunter2@127.0.0.1:${port}/`, { log: (l) => lines.push(l), stallMs: 1000 }),
  ).rejects.toThrow(
    `MONGODB_URL (127.0.0.1:${port}) has not taken a connection for 1s (it does not take connections (ECONNREFUSED)): start that server, or fix or unset MONGODB_URL`,
  );
  expect(lines.join('\n')).not.toContain('hunter2');
});

test('a server that takes connections and never answers is waited for, past the stall window, until Ctrl-C', async () => {
  const silent = net.createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as net.AddressInfo).port;
  const lines: string[] = [];
  const ctrlC = new AbortController();
  try {
    const waiting = waitForMongoUrl(`mongodb://127.0.0.1:${port}/`, { log: (l) => lines.push(l), signal: ctrlC.signal, stallMs: 500 });
    const settled = await Promise.race([waiting.then(() => 'answered', (err: Error) => err.message), new Promise((r) => setTimeout(r, 6000, 'still waiting'))]);
    expect(settled).toBe('still waiting');
    expect(lines).toEqual([`waiting for MONGODB_URL (127.0.0.1:${port}) to answer a ping: it takes connections but has not answered a ping yet`]);
    ctrlC.abort(new Error('SIGINT while starting'));
    await expect(waiting).rejects.toThrow('SIGINT while starting');
  } finally {
    silent.close();
  }
});

describe('an engine slow to its first answer', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-engine-url-'));
  let engine: ManagedServer;
  let relay: SlowEngineRelay;

  beforeAll(async () => {
    engine = await startFerretDb({ dir, log: () => undefined });
    // Longer than a ping's first time limit (2 s) and than the wait's silence (3 s); awake, it stays
    // so between two pings.
    relay = await SlowEngineRelay.start({ host: '127.0.0.1', port: engine.port }, { wakeMs: 4500, idleMs: 1000 });
  });

  afterAll(async () => {
    await relay?.close();
    await engine?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('is waited for, with one line saying so and one when it answered', async () => {
    const lines: string[] = [];
    await waitForMongoUrl(relay.url, { log: (l) => lines.push(l) });
    expect(relay.wakes).toBe(1);
    expect(lines).toEqual([
      `waiting for MONGODB_URL (127.0.0.1:${relay.port}) to answer a ping: it takes connections but has not answered a ping yet`,
      expect.stringMatching(new RegExp(`^mongodb: using MONGODB_URL \\(127\\.0\\.0\\.1:${relay.port}\\) from the environment; it answered a ping in \\d+\\.\\ds$`)),
    ]);
  });
});
