import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureBinary, MAILPIT } from './build';
import { httpStatus } from './http';
import { stderrLog } from './log';
import { managed } from './managed';
import { assertPortFree, freePort, withPortRetry } from './ports';
import { ServerProcess } from './process';
import type { ManagedServer, StartCommon } from './types';

/**
 * Mailpit: a real SMTP server for the tests, on loopback, which keeps every
 * message it takes (in a database in `dir`) and shows them through its HTTP API
 * (`GET /api/v1/messages`, `/api/v1/message/{ID}`). Any user and password are accepted, so an
 * SMTP_URL with credentials works too. Nothing leaves the machine: it relays nothing.
 */
export async function startMailpit(opts: StartCommon): Promise<ManagedServer & { smtpUrl: string; apiUrl: string }> {
  const env = opts.env ?? process.env;
  const { path: bin } = await ensureBinary(MAILPIT, env, opts.log ?? stderrLog);
  fs.mkdirSync(opts.dir, { recursive: true });
  return withPortRetry(opts.port, async (port) => {
    const httpPort = await freePort();
    await assertPortFree(port, 'Mailpit');
    const apiUrl = `http://127.0.0.1:${httpPort}`;
    const proc = new ServerProcess({
      label: MAILPIT.label,
      command: bin,
      args: [
        '--smtp', `127.0.0.1:${port}`,
        '--listen', `127.0.0.1:${httpPort}`,
        '--database', path.join(opts.dir, 'mailpit.db'),
        '--smtp-auth-accept-any',
        '--smtp-auth-allow-insecure',
        // No lookups on a closed network: not of the client's name, not of a newer release.
        '--smtp-disable-rdns',
        '--disable-version-check',
        '--quiet',
      ],
      env,
      dir: opts.dir,
      logName: 'mailpit.log',
      port,
      ready: async (timeoutMs) => (await httpStatus(`${apiUrl}/readyz`, timeoutMs)) === 200,
      log: opts.log ?? stderrLog,
      signal: opts.signal,
    });
    await proc.start();
    return Object.assign(managed('mailpit', port, proc, { ports: [port, httpPort] }), { smtpUrl: `smtp://127.0.0.1:${port}`, apiUrl });
  });
}
