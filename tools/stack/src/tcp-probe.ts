import * as net from 'node:net';

/** Whether something takes a TCP connection on the port within `timeoutMs`. */
export function takesConnections(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (taken: boolean): void => {
      socket.destroy();
      resolve(taken);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => done(true));
  });
}
