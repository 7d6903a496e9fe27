import { EntiaClient } from '@entia/client';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwt } from './support/peer';

// Time limits and AbortSignals end a call, its retries and its waits between them; nothing is
// repeated after the caller gave up. A real socket: a server that answers 503 or never answers.
describe('time limits and abort signals', () => {
  let server: Server;
  let baseUrl: string;
  let requests: string[];
  let mode: 'hang' | 'unavailable';
  const token = jwt({ exp: Math.floor(Date.now() / 1000) + 3600 });

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url!);
      if (req.url!.startsWith('/api/auth')) {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ accounts: [], token }));
      } else if (mode === 'unavailable') {
        res.writeHead(503, { 'Content-Type': 'application/problem+json', 'Retry-After': '3600' }).end('{}');
      }
      // 'hang': no answer at all.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    requests = [];
    mode = 'hang';
  });

  const calls = () => requests.filter((url) => !url.startsWith('/api/auth'));

  it('a call without an answer ends at its time limit with a TimeoutError', async () => {
    const client = new EntiaClient({ baseUrl, apiKey: 'k'.repeat(43), db: 'acme' });
    // The key exchanged first: the limit below is then the GET's alone, however busy the machine.
    await client.auth();
    const error = await client.db().getEntity('65f0a1b2c3d4e5f6a7b8c9d0', { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(calls()).toHaveLength(1);
  });

  it('the client-wide time limit applies to every call, and a call may lift it', async () => {
    const client = new EntiaClient({ baseUrl, apiKey: 'k'.repeat(43), db: 'acme', timeoutMs: 150 });
    // The exchange under a limit of its own: on a busy machine 150 ms may not be enough for it.
    await client.auth({ timeoutMs: 10_000 });
    await expect(client.db().listEntities({})).rejects.toMatchObject({ name: 'TimeoutError' });
    mode = 'unavailable';
    // Only this call's timers are watched: other timers of the process (sockets, jest) come and go.
    const hourLong = new Set<unknown>();
    const cleared = new Set<unknown>();
    const realSetTimeout = global.setTimeout;
    const realClearTimeout = global.clearTimeout;
    const setSpy = jest.spyOn(global, 'setTimeout').mockImplementation(((run: () => void, ms?: number) => {
      const timer = realSetTimeout(run, ms);
      if ((ms ?? 0) >= 3_600_000) hourLong.add(timer);
      return timer;
    }) as typeof setTimeout);
    const clearSpy = jest.spyOn(global, 'clearTimeout').mockImplementation((timer) => {
      cleared.add(timer);
      realClearTimeout(timer);
    });
    // Retry-After of an hour: with the limit lifted the call would wait; an abort ends the wait.
    const controller = new AbortController();
    const waiting = client.db().listEntities({}, { timeoutMs: 0, signal: controller.signal });
    while (calls().length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort(new Error('stop waiting'));
    await expect(waiting).rejects.toThrow('stop waiting');
    expect(calls()).toHaveLength(2);
    // The hour-long wait is gone with the call: it would keep a Node process from exiting.
    setSpy.mockRestore();
    clearSpy.mockRestore();
    expect(hourLong.size).toBe(1);
    expect([...hourLong].every((timer) => cleared.has(timer))).toBe(true);
  });

  it('a time limit covers the retries: a 503 with a long Retry-After is not waited out', async () => {
    mode = 'unavailable';
    const client = new EntiaClient({ baseUrl, apiKey: 'k'.repeat(43), db: 'acme' });
    await client.auth();
    await expect(client.db().schema({ timeoutMs: 300 })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(calls()).toHaveLength(1);
  });

  it('an aborted write is not retried, even under its Idempotency-Key', async () => {
    const client = new EntiaClient({ baseUrl, apiKey: 'k'.repeat(43), db: 'acme' });
    await client.auth();
    const controller = new AbortController();
    const writing = client.db().addValues('65f0a1b2c3d4e5f6a7b8c9d0', [{ type: 'name', string: 'x' }], { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 150));
    controller.abort();
    await expect(writing).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls()).toHaveLength(1);
  });

  it('a call given up leaves no unhandled rejection behind when the work it shared fails later', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      // Nothing listens on port 1: the key exchange and the schema fetch fail after the callers left.
      const client = new EntiaClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k'.repeat(43), db: 'acme', retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
      await expect(client.db().type('book').list({}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
      await expect(client.db().getEntity('65f0a1b2c3d4e5f6a7b8c9d0', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });

  it('an already aborted signal sends nothing', async () => {
    const client = new EntiaClient({ baseUrl, apiKey: 'k'.repeat(43), db: 'acme' });
    await expect(client.db().type('book').list({}, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls()).toHaveLength(0);
  });
});
