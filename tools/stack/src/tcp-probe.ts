import * as net from 'node:net';

/** Whether a TCP connect to the port was taken within `timeoutMs`, and if not, why (the error's code). */
export type ConnectOutcome = { taken: true } | { taken: false; code: string };

export function tryConnect(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<ConnectOutcome> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (outcome: ConnectOutcome): void => {
      socket.destroy();
      resolve(outcome);
    };
    socket.setTimeout(timeoutMs, () => done({ taken: false, code: 'no answer to connect' }));
    socket.once('error', (err: NodeJS.ErrnoException) => done({ taken: false, code: err.code ?? err.message }));
    socket.once('connect', () => done({ taken: true }));
  });
}

/** Whether something takes a TCP connection on the port within `timeoutMs`. */
export async function takesConnections(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<boolean> {
  return (await tryConnect(port, host, timeoutMs)).taken;
}

/** What `work` gives within `timeoutMs`, else `late` (the work is left to end by itself). */
export function within<T>(timeoutMs: number, work: Promise<T>, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => (timer = setTimeout(resolve, timeoutMs, late)));
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
