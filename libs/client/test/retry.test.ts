import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EntiaClient, EntiaError, KEY_IN_USE, backoffDelay, isRetryableStatus, mayRepeat } from '@entia/client';
import { Peer, problem } from './support/peer';

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
  it.each([400, 401, 403, 404, 405, 409, 413, 415, 422])('never retries %i', (s) => expect(isRetryableStatus(s)).toBe(false));
  it('retries the 409 saying the first attempt is still running, and no other 409', () => {
    expect(isRetryableStatus(409, KEY_IN_USE)).toBe(true);
    expect(isRetryableStatus(409, 'urn:entia:problem:conflict')).toBe(false);
  });
});

describe('mayRepeat', () => {
  it('repeats a POST only under an Idempotency-Key, every other method always', () => {
    expect(mayRepeat('POST', undefined)).toBe(false);
    expect(mayRepeat('post', undefined)).toBe(false);
    expect(mayRepeat('POST', 'k')).toBe(true);
    expect(['GET', 'DELETE', 'PUT'].map((m) => mayRepeat(m, undefined))).toEqual([true, true, true]);
  });
});

describe('Idempotency-Key on POSTs, against a real HTTP peer', () => {
  const peer = new Peer();
  const waits: number[] = [];
  let client: EntiaClient;

  beforeAll(async () => {
    await peer.start();
    client = new EntiaClient({
      baseUrl: peer.baseUrl,
      retry: { attempts: 4, baseDelayMs: 10, maxDelayMs: 50 },
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
  });
  afterAll(() => peer.stop());
  beforeEach(() => {
    peer.reset();
    waits.length = 0;
  });

  /** Answers the given statuses in turn, then 200. */
  const answering = (...answers: { status: number; body?: unknown; headers?: Record<string, string> }[]) => {
    peer.answer = () => answers.shift() ?? { status: 200, body: { ok: true } };
  };

  it('sends a fresh key with every POST call, the same one on each of its retries', async () => {
    answering({ status: 503, body: problem(503, 'down') }, { status: 502, body: problem(502, 'bad gateway') });
    await expect(client.request('POST', '/x', { a: 1 })).resolves.toEqual({ ok: true });
    await client.request('POST', '/x', { a: 1 });
    const keys = peer.to('/x').map((s) => s.idempotencyKey);
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys.slice(0, 3)).toEqual([keys[0], keys[0], keys[0]]);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it('sends the caller\'s own key when given one', async () => {
    await client.request('POST', '/x', { a: 1 }, { idempotencyKey: 'order-4711' });
    expect(peer.to('/x')[0]!.idempotencyKey).toBe('order-4711');
  });

  it('sends no key with other methods, and still retries them', async () => {
    answering({ status: 503, body: problem(503, 'down') });
    await client.request('GET', '/x');
    answering({ status: 500, body: problem(500, 'failed') });
    await client.request('DELETE', '/x');
    expect(peer.to('/x').map((s) => [s.method, s.idempotencyKey])).toEqual([
      ['GET', undefined],
      ['GET', undefined],
      ['DELETE', undefined],
      ['DELETE', undefined],
    ]);
  });

  it('never retries a POST sent without a key', async () => {
    answering({ status: 503, body: problem(503, 'down') });
    await expect(client.request('POST', '/x', { a: 1 }, { idempotencyKey: false })).rejects.toMatchObject({ status: 503 });
    expect(peer.to('/x')).toHaveLength(1);
    expect(peer.to('/x')[0]!.idempotencyKey).toBeUndefined();
  });

  it('waits out a 409 "still running" as long as Retry-After says, then takes the answer', async () => {
    const running = { ...problem(409, 'still running'), type: KEY_IN_USE };
    answering({ status: 409, body: running, headers: { 'Retry-After': '1' } }, { status: 201, body: { _id: 'x' }, headers: { 'Idempotent-Replayed': 'true' } });
    await expect(client.request('POST', '/x', { a: 1 })).resolves.toEqual({ _id: 'x' });
    expect(waits).toEqual([1000]);
    expect(peer.to('/x')).toHaveLength(2);
  });

  it('never retries another 4xx of a keyed POST (a 409 conflict, a 422 key reuse)', async () => {
    for (const status of [409, 422]) {
      peer.reset();
      answering({ status, body: problem(status, 'no') });
      await expect(client.request('POST', '/x', { a: 1 })).rejects.toMatchObject({ status });
      expect(peer.to('/x')).toHaveLength(1);
    }
  });
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
    // (The POST carries an Idempotency-Key, so only the status forbids the retry.)
    answers = [400, 200];
    await expect(client.request('POST', '/x', { a: 1 })).rejects.toMatchObject({ status: 400 });
    expect(hits).toBe(1);
  });

  it('retries network failures, then throws the last one; a POST without a key not at all', async () => {
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
    await expect(dead.request('POST', '/x', {})).rejects.toThrow(/fetch failed/);
    expect(slept).toHaveLength(4);
    await expect(dead.request('POST', '/x', {}, { idempotencyKey: false })).rejects.toThrow(/fetch failed/);
    expect(slept).toHaveLength(4);
  });
});
