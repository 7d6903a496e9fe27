import * as fs from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { findMongod } from '@entia/stack';

// The engine order (issue 21): an installed mongod, mongodb-memory-server's cache, a download, then
// FerretDB. Here nothing is installed or cached, and the download's host is made unreachable
// through mongodb-memory-server's own MONGOMS_DOWNLOAD_MIRROR: findMongod must give up in bounded
// time, say why in one line, and leave the choice to FerretDB (undefined).

let dir: string;
const saved = { mirror: process.env.MONGOMS_DOWNLOAD_MIRROR, downloadDir: process.env.MONGOMS_DOWNLOAD_DIR };
const lines: string[] = [];
const log = (line: string) => lines.push(line);
// No mongod on this PATH, whatever the machine has.
const env = () => ({ PATH: dir, MONGOMS_DOWNLOAD_DIR: dir });

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-mongod-engine-'));
  // mongodb-memory-server reads its settings from process.env, not from findMongod's env.
  process.env.MONGOMS_DOWNLOAD_DIR = dir;
  lines.length = 0;
});

afterEach(() => {
  for (const [name, value] of [['MONGOMS_DOWNLOAD_MIRROR', saved.mirror], ['MONGOMS_DOWNLOAD_DIR', saved.downloadDir]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A port nothing listens on: taken from a server closed again. */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('falls through when the download is refused: at once, with the reason in one line', async () => {
  process.env.MONGOMS_DOWNLOAD_MIRROR = `http://127.0.0.1:${await closedPort()}`;
  expect(await findMongod(env(), log)).toBeUndefined();
  // Refused, not timed out: the line names the refusal, so it did not wait out the probe.
  expect(lines).toEqual([expect.stringMatching(/^mongod: its download cannot be reached \(ECONNREFUSED after \d+ ms\)$/)]);
});

it('falls through when the download never answers, within the probe’s time', async () => {
  // A server that takes the request and says nothing.
  const silent = createHttpServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  process.env.MONGOMS_DOWNLOAD_MIRROR = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  try {
    // The silent server never answers: that findMongod returns at all is the probe giving up, and
    // the line says so (no answer, not a refusal).
    expect(await findMongod(env(), log)).toBeUndefined();
    expect(lines).toEqual([expect.stringMatching(/^mongod: its download cannot be reached \(no answer after \d+ ms\)$/)]);
  } finally {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

it('falls through when the download is not there (no build for this machine)', async () => {
  const missing = createHttpServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => missing.listen(0, '127.0.0.1', resolve));
  process.env.MONGOMS_DOWNLOAD_MIRROR = `http://127.0.0.1:${(missing.address() as { port: number }).port}`;
  try {
    expect(await findMongod(env(), log)).toBeUndefined();
    expect(lines).toEqual([expect.stringMatching(/^mongod: its download cannot be reached \(HTTP 404 after \d+ ms\)$/)]);
  } finally {
    await new Promise<void>((resolve) => missing.close(() => resolve()));
  }
});

it('does not try to download with ENTIA_MONGOD_DOWNLOAD=0', async () => {
  process.env.MONGOMS_DOWNLOAD_MIRROR = `http://127.0.0.1:${await closedPort()}`;
  expect(await findMongod({ ...env(), ENTIA_MONGOD_DOWNLOAD: '0' }, log)).toBeUndefined();
  expect(lines).toEqual([]);
});

it('prefers an installed mongod, without looking further', async () => {
  const fake = path.join(dir, 'mongod');
  fs.writeFileSync(fake, '#!/bin/sh\n', { mode: 0o755 });
  process.env.MONGOMS_DOWNLOAD_MIRROR = `http://127.0.0.1:${await closedPort()}`;
  expect(await findMongod(env(), log)).toBe(fake);
  expect(await findMongod({ ...env(), PATH: '/nonexistent', MONGOMS_SYSTEM_BINARY: fake }, log)).toBe(fake);
  expect(lines).toEqual([]);
});
