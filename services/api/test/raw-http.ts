import { once } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

// Clients on raw sockets, for tests that control every byte the server receives and when.

export interface Exchange {
  /** Everything the server sent until it closed the connection. */
  text: string;
  /** Milliseconds from the first byte sent to the connection closing. */
  closedAfterMs: number;
}

/** Sends `parts` (waiting `pauseMs` between them), then reads until the server closes, at most `limitMs`. */
export function exchange(port: number, parts: string[], pauseMs = 0, limitMs = 15_000): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let text = '';
    let timer: NodeJS.Timeout | undefined;
    const give = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${limitMs} ms; received: ${JSON.stringify(text.slice(0, 200))}`));
    }, limitMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(give);
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    socket.once('connect', () => {
      const send = (i: number) => {
        if (i >= parts.length || socket.destroyed) return;
        socket.write(parts[i]!);
        timer = setTimeout(() => send(i + 1), pauseMs);
      };
      send(0);
    });
  });
}

export interface Parsed {
  status: number;
  headers: Map<string, string>;
  body: Record<string, unknown>;
}

/** The first response in `text`, its body read as JSON. */
export function parse(text: string): Parsed {
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
  const headers = new Map(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const length = Number(headers.get('content-length'));
  const body = text.slice(split + 4, split + 4 + length);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) as Record<string, unknown> };
}

/**
 * Sends `text` — a request whose Content-Length promises more body than it carries — to `server`
 * (listening on `port`), waits until the app reads the body, and hangs up: the client that leaves
 * mid-body. Waiting for the read, not for a time, makes sure the app is reading when it goes.
 */
export async function hangUp(server: Server, port: number, text: string): Promise<void> {
  const arrived = once(server, 'request') as Promise<[IncomingMessage]>;
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(text);
  const [req] = await arrived;
  while (req.readableFlowing !== true) {
    if (req.destroyed) throw new Error(`the server closed ${req.method} ${req.url} without reading its body`);
    await sleep(10);
  }
  socket.destroy();
  await once(socket, 'close');
}
