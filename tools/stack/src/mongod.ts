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
 * A real mongod if this machine has one: MONGOMS_SYSTEM_BINARY, `mongod` on PATH, or one that
 * mongodb-memory-server already downloaded. Downloading is opt-in (ENTIA_MONGOD_DOWNLOAD=1)
 * because these machines have no internet and a hanging download is worse than FerretDB.
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
  try {
    const cached = await mms.DryMongoBinary.locateBinary(mms.DryMongoBinary.getEnsuredOptions());
    if (cached) return cached;
  } catch (err) {
    log(`mongodb-memory-server cache lookup failed: ${errorMessage(err)}`);
  }
  if (env.ENTIA_MONGOD_DOWNLOAD === '1') {
    log('downloading mongod through mongodb-memory-server (ENTIA_MONGOD_DOWNLOAD=1)');
    try {
      return await mms.MongoBinary.getPath({});
    } catch (err) {
      throw new StackError(`mongod download failed: ${errorMessage(err).split('\n')[0]} (unset ENTIA_MONGOD_DOWNLOAD to use FerretDB)`);
    }
  }
  return undefined;
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
      ready: () => mongoPing(port),
      readyTimeoutMs: 60_000,
      stopGraceMs: 10_000,
    });
    await proc.start();
    return Object.assign(managed('mongodb', port, proc), { url: `mongodb://127.0.0.1:${port}/` });
  });
}
