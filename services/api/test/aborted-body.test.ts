import { closeDeps, createApp, createLogger, openDeps, type Deps } from '@entia/api';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHttpServer } from '../src/http/server';
import { exchange, hangUp, parse } from './raw-http';
import { testConfig } from './support';

const REQUEST_TIMEOUT_MS = 1500;

interface Line {
  level: number;
  msg: string;
  req?: { id: string };
  res?: { statusCode: number };
}

/**
 * A body that never arrives whole is the client's doing (issue 31): a client hanging up mid-body,
 * or one so slow that REQUEST_TIMEOUT_MS cuts it off. Both surface in the app as body-parser's
 * `request.aborted`, whose `ECONNABORTED` was taken for a Redis outage: a "dependency unavailable"
 * warning and an error-level 503 line that nobody received. The real API on a real socket, its log
 * captured at debug.
 */
describe('a request body cut short, in the log', () => {
  const lines: string[] = [];
  let deps: Deps;
  let server: Server;
  let port: number;
  const logged = () => lines.map((line) => JSON.parse(line) as Line);

  beforeAll(async () => {
    deps = openDeps(testConfig({ REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) }), createLogger('debug', { write: (line: string) => void lines.push(line) }));
    server = createHttpServer(createApp(deps), { requestTimeoutMs: REQUEST_TIMEOUT_MS, logger: deps.logger });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await closeDeps(deps);
  });
  beforeEach(() => void (lines.length = 0));

  // A route that reads a body and needs no token: the long query of a database that does not exist.
  const head = (id: string, length: number) =>
    `POST /api/nosuchdb/entity/query HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${id}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  /** The request line of request `id`, once written (it is written when its connection closes). */
  async function requestLine(id: string): Promise<Line> {
    for (let waited = 0; waited < 10_000; waited += 20) {
      const line = logged().find((line) => line.req?.id === id);
      if (line) return line;
      await sleep(20);
    }
    throw new Error(`no request line for ${id}; logged: ${lines.join('')}`);
  }

  function expectClientEvent(line: Line, status: number): void {
    expect({ msg: line.msg, status: line.res?.statusCode, level: line.level }).toEqual({ msg: 'request aborted', status, level: 30 });
    expect(logged().filter((line) => line.msg === 'dependency unavailable')).toEqual([]);
    expect(logged().filter((line) => line.level >= 40)).toEqual([]);
  }

  it('a client that hangs up mid-body: one info line, status 400, no dependency warning', async () => {
    const id = randomUUID();
    await hangUp(server, port, `${head(id, 100)}{"q": "`);
    expectClientEvent(await requestLine(id), 400);
  });

  it('a body cut off by REQUEST_TIMEOUT_MS: the client reads 408, the log says 408 at info, no dependency warning', async () => {
    const id = randomUUID();
    const body = JSON.stringify({ q: 'x'.repeat(60) });
    // A byte every 100 ms: 6 s of body, cut off at 1.5 s.
    const { text } = await exchange(port, [head(id, body.length), ...body], 100);
    expect(parse(text).status).toBe(408);
    expectClientEvent(await requestLine(id), 408);
  });

  it('a body that arrives whole is still answered by the route (its 404), logged as completed', async () => {
    const id = randomUUID();
    const body = JSON.stringify({ q: 'on time' });
    const { text } = await exchange(port, [`${head(id, body.length)}${body}`.replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n')]);
    expect(parse(text).status).toBe(404);
    expect(await requestLine(id)).toMatchObject({ msg: 'request completed', level: 30, res: { statusCode: 404 } });
  });
});
