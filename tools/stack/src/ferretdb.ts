import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureBinary, FERRETDB } from './build';
import { stderrLog } from './log';
import { managed } from './managed';
import { mongoPing } from './mongo-ping';
import { assertPortFree, withPortRetry } from './ports';
import { ServerProcess } from './process';
import type { ManagedServer, StartCommon } from './types';

export async function startFerretDb(opts: StartCommon): Promise<ManagedServer & { url: string }> {
  const env = opts.env ?? process.env;
  const { path: bin } = await ensureBinary(FERRETDB, env, opts.log ?? stderrLog);
  const dataDir = path.join(opts.dir, 'data');
  const stateDir = path.join(opts.dir, 'state');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.mkdirSync(stateDir, { recursive: true });
  return withPortRetry(opts.port, async (port) => {
    await assertPortFree(port, 'FerretDB');
    const proc = new ServerProcess({
      label: `FerretDB ${FERRETDB.version}`,
      command: bin,
      args: [
        '--handler=sqlite',
        // FerretDB wants a directory URI with a trailing slash; one SQLite file per database.
        `--sqlite-url=file:${dataDir}/`,
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
      ready: () => mongoPing(port),
      readyTimeoutMs: 30_000,
    });
    await proc.start();
    return Object.assign(managed('mongodb', port, proc), { url: `mongodb://127.0.0.1:${port}/` });
  });
}
