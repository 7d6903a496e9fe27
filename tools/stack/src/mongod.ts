import * as fs from 'node:fs';
import * as path from 'node:path';
import { StackError, errorMessage } from './errors';
import { stderrLog, type Log } from './log';
import { managed } from './managed';
import { mongoPing } from './mongo-ping';
import { assertPortFree, withPortRetry } from './ports';
import { ServerProcess } from './process';
import type { ManagedServer, StartCommon } from './types';
import { which } from './which';

/**
 * The mongod a download fetches: pinned, so that every machine that downloads one runs
 * the suite against the same server. `MONGOMS_VERSION` overrides it.
 */
export const MONGOD_VERSION = '8.0.4';

/** How long the download may take to answer that it is there before FerretDB is used instead. */
export const DOWNLOAD_PROBE_MS = 3000;

/**
 * A real mongod where one can be had, in this order: MONGOMS_SYSTEM_BINARY, `mongod` on PATH,
 * mongodb-memory-server's cache, then a download through mongodb-memory-server (once, cached) unless
 * ENTIA_MONGOD_DOWNLOAD=0. Offline machines (like CI here) learn within DOWNLOAD_PROBE_MS that the
 * download's host cannot be reached, and get undefined: FerretDB then.
 */
export async function findMongod(env: NodeJS.ProcessEnv = process.env, log: Log = stderrLog): Promise<string | undefined> {
  const system = env.MONGOMS_SYSTEM_BINARY;
  if (system) {
    if (!fs.existsSync(system)) throw new StackError(`MONGOMS_SYSTEM_BINARY=${system} does not exist: fix or unset it`);
    return system;
  }
  const onPath = which('mongod', env);
  if (onPath) return onPath;
  // Loaded lazily: it pulls in the mongodb driver, which most runs here never need.
  const mms = require('mongodb-memory-server-core') as typeof import('mongodb-memory-server-core');
  const version = env.MONGOMS_VERSION ?? MONGOD_VERSION;
  try {
    const cached = await mms.DryMongoBinary.locateBinary(mms.DryMongoBinary.getEnsuredOptions({ version }));
    if (cached) return cached;
  } catch (err) {
    log(`mongodb-memory-server cache lookup failed: ${errorMessage(err)}`);
  }
  if (env.ENTIA_MONGOD_DOWNLOAD === '0') return undefined;
  return downloadMongod(mms, version, log);
}

async function downloadMongod(mms: typeof import('mongodb-memory-server-core'), version: string, log: Log): Promise<string | undefined> {
  const started = Date.now();
  // Its address as mongodb-memory-server makes it (MONGOMS_DOWNLOAD_MIRROR / _URL included).
  const { MongoBinaryDownloadUrl } = require('mongodb-memory-server-core/lib/util/MongoBinaryDownloadUrl') as typeof import('mongodb-memory-server-core/lib/util/MongoBinaryDownloadUrl');
  let url: URL;
  try {
    url = new URL(await new MongoBinaryDownloadUrl(await mms.DryMongoBinary.generateOptions({ version })).getDownloadUrl());
  } catch (err) {
    log(`mongod: no download for this machine (${errorMessage(err).split('\n')[0]})`);
    return undefined;
  }
  const refused = await unreachable(url, DOWNLOAD_PROBE_MS);
  if (refused) {
    log(`mongod: its download cannot be reached (${refused} after ${Date.now() - started} ms)`);
    return undefined;
  }
  log(`mongod: downloading ${version} through mongodb-memory-server (once; cached for later runs)`);
  try {
    return await mms.MongoBinary.getPath({ version });
  } catch (err) {
    log(`mongod: download failed (${errorMessage(err).split('\n')[0]})`);
    return undefined;
  }
}

/**
 * Why `url` cannot be downloaded now: asked with a HEAD request that must answer 2xx within
 * `timeoutMs` (name lookup, connection and answer together); undefined when it can.
 */
async function unreachable(url: URL, timeoutMs: number): Promise<string | undefined> {
  try {
    const answer = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
    return answer.ok ? undefined : `HTTP ${answer.status}`;
  } catch (err) {
    const cause = (err as { cause?: NodeJS.ErrnoException }).cause;
    if ((err as Error).name === 'TimeoutError') return 'no answer';
    return cause?.code ?? errorMessage(err);
  }
}

/**
 * Run by pid like the other servers (rather than through MongoMemoryServer) so kill() and
 * restart() on the same port and dbpath behave the same for every engine.
 */
export async function startMongod(opts: StartCommon & { binary: string }): Promise<ManagedServer & { url: string }> {
  const dataDir = path.join(opts.dir, 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  return withPortRetry(opts.port, async (port) => {
    await assertPortFree(port, 'mongod');
    const proc = new ServerProcess({
      label: 'mongod',
      command: opts.binary,
      // No unix socket: a crashed run would leave /tmp/mongodb-<port>.sock behind.
      args: ['--port', String(port), '--bind_ip', '127.0.0.1', '--dbpath', dataDir, '--nounixsocket'],
      env: opts.env ?? process.env,
      dir: opts.dir,
      logName: 'mongod.log',
      port,
      ready: (timeoutMs) => mongoPing(port, '127.0.0.1', timeoutMs),
      log: opts.log ?? stderrLog,
      signal: opts.signal,
      stopGraceMs: 10_000,
    });
    await proc.start();
    return Object.assign(managed('mongodb', port, proc), { url: `mongodb://127.0.0.1:${port}/` });
  });
}
