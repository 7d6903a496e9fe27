import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EntiaClient, EntiaError, backoffDelay, isRetryableStatus } from '@entia/client';

describe('backoffDelay', () => {
  const policy = { attempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
  it('doubles the ceiling each retry, up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, () => 0.999999))).toEqual([99, 199, 399, 799, 999, 999]);
  });
  it('is jittered between zero and the ceiling', () => {
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(200);
  });
});

describe('isRetryableStatus', () => {
  it.each([500, 502, 503, 504, 429])('retries %i', (s) => expect(isRetryableStatus(s)).toBe(true));
  it.each([400, 401, 403, 404, 405, 413, 415])('never retries %i', (s) => expect(isRetryableStatus(s)).toBe(false));
});

describe('EntiaClient retries against a real HTTP peer', () => {
  let server: Server;
  let answers: number[];
  let hits: number;
  let client: EntiaClient;
  const waits: number[] = [];

  beforeAll(async () => {
    server = createServer((_req, res) => {
      const status = answers[Math.min(hits++, answers.length - 1)]!;
      res.writeHead(status, { 'Content-Type': status < 400 ? 'application/json' : 'application/problem+json' });
      res.end(JSON.stringify(status < 400 ? { ok: true } : { type: 'urn:x', title: 'x', status, detail: `failed ${status}` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    client = new EntiaClient({
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { attempts: 4, baseDelayMs: 10, maxDelayMs: 50 },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    hits = 0;
    waits.length = 0;
  });

  it('retries 5xx until success', async () => {
    answers = [503, 500, 200];
    await expect(client.request('GET', '/x')).resolves.toEqual({ ok: true });
    expect(hits).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it('gives up after the last attempt with the server problem', async () => {
    answers = [503];
    const error = await client.request('GET', '/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EntiaError);
    expect((error as EntiaError).status).toBe(503);
    expect((error as EntiaError).problem?.detail).toBe('failed 503');
    expect(hits).toBe(4);
  });

  it('never retries a 4xx', async () => {
    answers = [400, 200];
    await expect(client.request('POST', '/x', { a: 1 })).rejects.toMatchObject({ status: 400 });
    expect(hits).toBe(1);
  });

  it('retries network failures, then throws the last one', async () => {
    const slept: number[] = [];
    const dead = new EntiaClient({
      baseUrl: 'http://127.0.0.1:1',
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async (ms) => {
        slept.push(ms);
      },
    });
    await expect(dead.request('GET', '/x')).rejects.toThrow(/fetch failed/);
    expect(slept).toHaveLength(2);
  });
});
