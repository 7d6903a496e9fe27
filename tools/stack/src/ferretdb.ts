import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureBinary, FERRETDB } from './build';
import { stderrLog } from './log';
import { managed } from './managed';
import { mongoPing } from './mongo-ping';
import { assertPortFree, withPortRetry } from './ports';
import { ServerProcess } from './process';
import type { ManagedServer, StartCommon } from './types';

/** Where FerretDB keeps its data: SQLite files in the stack's dir, or a PostgreSQL database. */
interface FerretDbHandler {
  name: 'SQLite' | 'PostgreSQL';
  args: string[];
}

/**
 * SQLite by default (nothing to install). `ENTIA_FERRETDB_POSTGRESQL_URL` selects the PostgreSQL
 * handler: an existing database of that server holds the data (one schema per MongoDB database) and
 * outlives the stack. FerretDB pushes `_id` lookups and more filters down to PostgreSQL, which reads
 * ten times faster than its SQLite handler at 100 000 documents: the load benchmark's full size.
 */
function ferretDbHandler(env: NodeJS.ProcessEnv, dataDir: string): FerretDbHandler {
  const url = env.ENTIA_FERRETDB_POSTGRESQL_URL;
  if (url) return { name: 'PostgreSQL', args: ['--handler=postgresql', `--postgresql-url=${url}`] };
  fs.mkdirSync(dataDir, { recursive: true });
  // FerretDB wants a directory URI with a trailing slash; one SQLite file per database.
  return { name: 'SQLite', args: ['--handler=sqlite', `--sqlite-url=file:${dataDir}/`] };
}

export async function startFerretDb(opts: StartCommon): Promise<ManagedServer & { url: string; handler: FerretDbHandler['name'] }> {
  const env = opts.env ?? process.env;
  const { path: bin } = await ensureBinary(FERRETDB, env, opts.log ?? stderrLog);
  const handler = ferretDbHandler(env, path.join(opts.dir, 'data'));
  const stateDir = path.join(opts.dir, 'state');
  fs.mkdirSync(stateDir, { recursive: true });
  return withPortRetry(opts.port, async (port) => {
    await assertPortFree(port, 'FerretDB');
    const proc = new ServerProcess({
      label: `FerretDB ${FERRETDB.version} (${handler.name})`,
      command: bin,
      args: [
        ...handler.args,
        `--state-dir=${stateDir}`,
        `--listen-addr=127.0.0.1:${port}`,
        '--telemetry=disable',
        // The default 127.0.0.1:8088 debug listener would clash between parallel stacks; "-" disables it.
        '--debug-addr=-',
        '--log-level=warn',
      ],
      env,
      dir: opts.dir,
      logName: 'ferretdb.log',
      port,
      ready: (timeoutMs) => mongoPing(port, '127.0.0.1', timeoutMs),
      log: opts.log ?? stderrLog,
      signal: opts.signal,
    });
    await proc.start();
    return Object.assign(managed('mongodb', port, proc), { url: `mongodb://127.0.0.1:${port}/`, handler: handler.name });
  });
}
