import * as net from 'node:net';
import { StackError } from './errors';

// Ports handed out in this process: the OS may return the same free port to two concurrent
// callers until one of the servers has actually bound it.
const handedOut = new Set<number>();

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const addr = srv.address() as net.AddressInfo;
      srv.close(() => resolve(addr.port));
    });
  });
}

export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await listenOnce(0);
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new StackError('no free TCP port found on 127.0.0.1 (too many ports in use?)');
}

/** A busy port would let a readiness probe talk to some other server and call it ours. */
export async function assertPortFree(port: number, what: string): Promise<void> {
  try {
    await listenOnce(port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StackError(`port ${port} for ${what} is not available (${code}): stop whatever uses it or pick another port`);
  }
}

export function isPortClash(err: unknown): boolean {
  const text = err instanceof StackError ? [err.message, ...err.details].join('\n') : String(err);
  return /address already in use|EADDRINUSE|is not available/i.test(text);
}

/**
 * Between picking a free port and the server binding it another process may take it; when we
 * chose the port ourselves, pick again rather than fail.
 */
export async function withPortRetry<T>(given: number | undefined, start: (port: number) => Promise<T>): Promise<T> {
  if (given !== undefined) return start(given);
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (err) {
      if (attempt >= 3 || !isPortClash(err)) throw err;
    }
  }
}
