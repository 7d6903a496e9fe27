import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { binDir, withLock } from './cache';
import { StackError } from './errors';
import type { Log } from './log';

/**
 * The one Node.js the project runs its tests and services on. Its version is named once, in the
 * repository's `.node-version`; the Dockerfile, `engines` and `@types/node` are held to it by
 * tools/deploy/test/node-line.test.ts. The binary comes from the npm registry's Node binary
 * packages (`node-<platform>-<arch>`, the official build repackaged), so a machine that can run
 * `npm install` can fetch it with no other download site.
 */
export const NODE_VERSION_FILE = '.node-version';

// Platforms the registry has a binary package for; others set ENTIA_NODE_BIN (or run the pinned major).
const PLATFORMS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64'];
const METADATA_TIMEOUT_MS = 30_000;
// 57 MB for linux-x64; generous for a slow link, still finite for a stalled one.
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

export function pinnedNodeVersion(repo: string): string {
  const file = path.join(repo, NODE_VERSION_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new StackError(`${file} is missing: it names the one Node.js version the project runs on (e.g. 26.10.0)`);
  }
  const version = text.trim().replace(/^v/, '');
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new StackError(`${file} must hold one exact version such as 26.10.0, not "${text.trim()}"`);
  return version;
}

export function majorOf(version: string): number {
  return Number(version.replace(/^v/, '').split('.')[0]);
}

/** The registry package with the Node binary for this machine. */
export function nodePackageName(version: string, platform: string = process.platform, arch: string = process.arch): string {
  const key = `${platform}-${arch}`;
  if (!PLATFORMS.includes(key)) {
    throw new StackError(
      `the npm registry has no Node.js binary package for ${key}: install Node ${version} yourself and run with it, or set ENTIA_NODE_BIN to its node binary`,
    );
  }
  return `node-${key}`;
}

interface Registry {
  /** Without credentials: safe to show. */
  base: string;
  /** Basic credentials of a `https://user:pass@host/` registry URL, sent as a header instead. */
  headers: Record<string, string>;
}

/**
 * Where the registry is: npm passes its configured one to scripts (`npm_config_registry`); run
 * outside npm, we ask npm for it, so the one registry `npm install` uses is the one asked here.
 */
function configuredRegistry(env: NodeJS.ProcessEnv): string {
  if (env.npm_config_registry) return env.npm_config_registry;
  const r = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', timeout: 30_000, env });
  const answer = r.status === 0 ? r.stdout.trim() : '';
  if (!answer) throw new StackError('cannot tell which npm registry to fetch Node from: run through npm (npm test, npm start) or set npm_config_registry');
  return answer;
}

function registryOf(env: NodeJS.ProcessEnv): Registry {
  const raw = configuredRegistry(env);
  let url: URL;
  try {
    url = new URL(raw.endsWith('/') ? raw : `${raw}/`);
  } catch {
    throw new StackError('npm_config_registry is not a URL: fix the registry in your npm configuration');
  }
  const headers: Record<string, string> = {};
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { base: url.href, headers };
}

/** fetch rejects with "fetch failed"; the reason (DNS, refused, timeout) is its cause. */
function why(err: unknown): string {
  // Duck-typed: under jest, errors from Node's core come from another realm than `Error`.
  const e = err as { message?: unknown; cause?: { message?: unknown; code?: unknown } } | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const cause = e?.cause && (e.cause.message || e.cause.code);
  return typeof cause === 'string' && cause ? `${message}: ${cause}` : message;
}

/** The registry's host only: a registry URL may carry credentials, which never go into a message. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the registry';
  }
}

export function nodeDir(version: string, env: NodeJS.ProcessEnv = process.env, platform = process.platform, arch = process.arch): string {
  return path.join(binDir(env), `node-v${version}-${platform}-${arch}`);
}

/** `node -p process.version` of a binary, or why it did not answer. */
export function nodeVersionOf(bin: string): { version?: string; problem?: string } {
  const r = spawnSync(bin, ['-p', 'process.versions.node'], { timeout: 30_000, encoding: 'utf8', env: { PATH: process.env.PATH } });
  if (r.error) return { problem: r.error.message };
  if (r.status !== 0) return { problem: (r.stderr || r.stdout).trim().split('\n')[0] || `exit code ${r.status}` };
  return { version: r.stdout.trim() };
}

/**
 * A cached binary counts once it has answered with the pinned version; the stamp (size + mtime)
 * saves asking on every run and notices a binary replaced behind our back.
 */
function verified(bin: string, version: string): boolean {
  const st = fs.statSync(bin, { throwIfNoEntry: false });
  if (!st) return false;
  const stamp = `${st.size}:${st.mtimeMs}`;
  try {
    if (fs.readFileSync(`${bin}.verified`, 'utf8') === stamp) return true;
  } catch {
    // not stamped yet
  }
  if (nodeVersionOf(bin).version !== version) return false;
  fs.writeFileSync(`${bin}.verified`, stamp);
  return true;
}

interface Dist {
  tarball: string;
  integrity: string;
}

async function fetchDist(pkg: string, version: string, registry: Registry): Promise<Dist> {
  const where = `${pkg}@${version} from ${hostOf(registry.base)}`;
  let res: Response;
  try {
    // The abbreviated document every npm registry serves to `npm install`; it carries dist.integrity.
    res = await fetch(`${registry.base}${pkg}`, {
      headers: { ...registry.headers, accept: 'application/vnd.npm.install-v1+json' },
      signal: AbortSignal.timeout(METADATA_TIMEOUT_MS),
    });
  } catch (err) {
    throw new StackError(`cannot fetch the metadata of ${where}: ${why(err)} (offline? set ENTIA_NODE_BIN to a Node ${version} binary)`);
  }
  if (!res.ok) throw new StackError(`cannot fetch the metadata of ${where}: HTTP ${res.status}`);
  const doc = (await res.json().catch(() => undefined)) as { versions?: Record<string, { dist?: Partial<Dist> }> } | undefined;
  const dist = doc?.versions?.[version]?.dist;
  if (!dist) throw new StackError(`${where}: the registry has no such version (pick one it has in ${NODE_VERSION_FILE}, or set ENTIA_NODE_BIN)`);
  if (!dist.tarball || !dist.integrity?.includes('sha512-')) {
    throw new StackError(`${where}: the registry's metadata has no sha512 integrity for the tarball, so it cannot be verified`);
  }
  return { tarball: dist.tarball, integrity: dist.integrity };
}

/** Streams the tarball to `file` and checks it against the registry's sha512 (SRI) integrity. */
async function download(dist: Dist, registry: Registry, file: string, what: string): Promise<void> {
  let res: Response;
  try {
    // The registry's credentials go only to the registry's own host.
    const headers = hostOf(dist.tarball) === hostOf(registry.base) ? registry.headers : {};
    res = await fetch(dist.tarball, { headers, signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (err) {
    throw new StackError(`cannot download ${what}: ${why(err)}`);
  }
  if (!res.ok || !res.body) throw new StackError(`cannot download ${what}: HTTP ${res.status}`);
  const hash = createHash('sha512');
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => hash.update(chunk));
  try {
    await pipeline(body, fs.createWriteStream(file));
  } catch (err) {
    throw new StackError(`cannot download ${what}: ${why(err)}`);
  }
  const actual = `sha512-${hash.digest('base64')}`;
  const expected = dist.integrity.split(/\s+/).filter((h) => h.startsWith('sha512-'));
  if (!expected.includes(actual)) {
    throw new StackError(`${what}: the downloaded tarball does not match the registry's integrity (${expected[0]}, got ${actual}); nothing was installed`);
  }
}

export interface EnsuredNode {
  /** The node binary. */
  path: string;
  version: string;
  fetched: boolean;
}

/**
 * The pinned Node for this machine: ENTIA_NODE_BIN when set (it must be the pinned major), else the
 * cached copy, fetched and verified on first use (one fetcher at a time; an atomic rename, so
 * readers see no directory or a whole one).
 */
export async function ensureNode(version: string, env: NodeJS.ProcessEnv, log: Log): Promise<EnsuredNode> {
  const override = env.ENTIA_NODE_BIN;
  if (override) {
    const got = nodeVersionOf(override);
    if (!got.version) throw new StackError(`ENTIA_NODE_BIN=${override} does not run (${got.problem}): fix or unset it`);
    if (majorOf(got.version) !== majorOf(version)) {
      throw new StackError(`ENTIA_NODE_BIN=${override} is Node ${got.version}, not the pinned line ${majorOf(version)} (${NODE_VERSION_FILE}): fix or unset it`);
    }
    return { path: override, version: got.version, fetched: false };
  }
  const pkg = nodePackageName(version);
  const dir = nodeDir(version, env);
  const bin = path.join(dir, 'bin', 'node');
  if (verified(bin, version)) return { path: bin, version, fetched: false };

  const bins = binDir(env);
  const key = path.basename(dir);
  return withLock(path.join(bins, `.${key}.lock`), log, async () => {
    if (verified(bin, version)) return { path: bin, version, fetched: false };
    // Holding the lock: a temp dir for this key is left over from a killed fetch; so is a dir
    // whose binary does not verify.
    for (const e of fs.readdirSync(bins)) {
      if (e.startsWith(`.tmp-${key}-`)) fs.rmSync(path.join(bins, e), { recursive: true, force: true });
    }
    fs.rmSync(dir, { recursive: true, force: true });
    const started = Date.now();
    const registry = registryOf(env);
    log(`fetching Node ${version} (${pkg}) from ${hostOf(registry.base)} into ${dir} (once per machine)`);
    const tmp = fs.mkdtempSync(path.join(bins, `.tmp-${key}-`));
    try {
      const dist = await fetchDist(pkg, version, registry);
      const tgz = path.join(tmp, 'node.tgz');
      await download(dist, registry, tgz, `${pkg}@${version}`);
      // Only the binary and its licence: the headers and docs are not needed to run anything.
      const tar = spawnSync('tar', ['-xzf', tgz, '-C', tmp, 'package/bin/node', 'package/LICENSE'], { encoding: 'utf8', timeout: 5 * 60_000 });
      if (tar.error || tar.status !== 0) {
        throw new StackError(`cannot unpack ${pkg}@${version}: ${tar.error?.message ?? tar.stderr.trim().split('\n')[0]}`);
      }
      const unpacked = path.join(tmp, 'package');
      const got = nodeVersionOf(path.join(unpacked, 'bin', 'node'));
      if (got.version !== version) {
        throw new StackError(`the node binary of ${pkg}@${version} ${got.problem ? `does not run: ${got.problem}` : `says it is ${got.version}`}`);
      }
      fs.renameSync(unpacked, dir);
      const st = fs.statSync(bin);
      fs.writeFileSync(`${bin}.verified`, `${st.size}:${st.mtimeMs}`);
      log(`fetched and verified Node ${version} (sha512 as the registry lists it) in ${((Date.now() - started) / 1000).toFixed(1)}s`);
      return { path: bin, version, fetched: true };
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
}
