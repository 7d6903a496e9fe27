import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { MAX_BACKOFF_MS, backoffDelay, deliveryHeaders, webhookBackoff } from '../src/webhooks/deliver';
import { MAX_RESPONSE_BYTES, OutboundError, parseAllowedHosts, post, refusedAddress } from '../src/webhooks/outbound';

/** How a webhook calls out (issue 18): which addresses it may reach, how it signs, how long it waits. */

const NONE = parseAllowedHosts('none');

describe('refusedAddress', () => {
  it.each([
    ['93.184.215.14', 'public IPv4'],
    ['8.8.8.8', 'public IPv4'],
    ['2606:4700:4700::1111', 'public IPv6'],
  ])('allows %s (%s)', (address) => {
    expect(refusedAddress(address, NONE)).toBeUndefined();
  });

  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedAddress(address, NONE)).toMatch(new RegExp(`^${address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a ${range} address, refused`));
  });

  it('allows what WEBHOOK_ALLOWED_HOSTS names: an address, a CIDR range, IPv6 in brackets', () => {
    const allowed = parseAllowedHosts('127.0.0.1, 10.0.0.0/8,[fd00::1]');
    expect(refusedAddress('127.0.0.1', allowed)).toBeUndefined();
    expect(refusedAddress('::ffff:127.0.0.1', allowed)).toBeUndefined();
    expect(refusedAddress('10.200.3.4', allowed)).toBeUndefined();
    expect(refusedAddress('fd00::1', allowed)).toBeUndefined();
    expect(refusedAddress('127.0.0.2', allowed)).toMatch(/loopback/);
    expect(refusedAddress('192.168.0.1', allowed)).toMatch(/private/);
    expect(refusedAddress('fd00::2', allowed)).toMatch(/uniqueLocal/);
  });
});

describe('parseAllowedHosts', () => {
  it('reads none, names, addresses and ranges', () => {
    expect(parseAllowedHosts('none')).toEqual({ names: new Set(), ranges: [] });
    expect(parseAllowedHosts('')).toEqual({ names: new Set(), ranges: [] });
    const parsed = parseAllowedHosts('Hooks.Internal , 127.0.0.1,10.0.0.0/8');
    expect([...parsed.names]).toEqual(['hooks.internal']);
    expect(parsed.ranges.map(([base, bits]) => `${base.toString()}/${bits}`)).toEqual(['127.0.0.1/32', '10.0.0.0/8']);
  });

  it('refuses a malformed range', () => {
    expect(() => parseAllowedHosts('10.0.0.0/99')).toThrow(/not a CIDR range/);
  });
});

describe('backoff', () => {
  it('doubles from WEBHOOK_BACKOFF_MS, at most an hour', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelay(1000, n))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffDelay(1000, 13)).toBe(MAX_BACKOFF_MS);
    expect(backoffDelay(1000, 10_000)).toBe(MAX_BACKOFF_MS);
  });

  it('is the custom strategy of webhook jobs only', () => {
    const strategy = webhookBackoff(200);
    expect(strategy(3, 'webhook')).toBe(800);
    expect(strategy(3, 'other')).toBe(-1);
  });
});

describe('deliveryHeaders', () => {
  it('signs "<timestamp>.<body>" with the secret (HMAC-SHA256, hex)', () => {
    const body = '{"id":"1-0.abc"}';
    const headers = deliveryHeaders('0123456789abcdef', '1-0.abc', body, 1_700_000_000_500);
    const expected = createHmac('sha256', '0123456789abcdef').update(`1700000000.${body}`).digest('hex');
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'Entia-Event-Id': '1-0.abc',
      'Entia-Timestamp': '1700000000',
      'Entia-Signature': `t=1700000000,v1=${expected}`,
    });
  });
});

describe('post', () => {
  let server: Server;
  let base: string;
  const sockets = new Set<Socket>();
  const seen: string[] = [];
  let silentClosed: () => void = () => undefined;
  let hugeClosed: (finished: boolean) => void = () => undefined;
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/ok': (_req, res) => res.writeHead(204).end(),
    '/fail': (_req, res) => res.writeHead(503).end('busy'),
    '/redirect': (_req, res) => res.writeHead(307, { Location: '/ok' }).end(),
    // Never answers; tells the test when the caller gave up and closed the connection.
    '/silent': (req) => req.socket.once('close', () => silentClosed()),
    '/huge': (_req, res) => {
      res.writeHead(200);
      // Far more than is read: the request ends once MAX_RESPONSE_BYTES came.
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const more = () => {
        while (sent < 1024 && res.write(chunk)) sent++;
        if (sent < 1024) res.once('drain', more);
        else res.end();
      };
      // Closed before all of it was written: the caller stopped reading, not waited it out.
      res.once('close', () => hugeClosed(res.writableFinished));
      more();
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url!);
      req.resume();
      routes[req.url!]!(req, res);
    });
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const allowed = { allowed: parseAllowedHosts('127.0.0.1'), timeoutMs: 1000 };

  it('answers the status of an allowed receiver', async () => {
    await expect(post(`${base}/ok`, '{}', {}, allowed)).resolves.toEqual({ status: 204 });
    await expect(post(`${base}/fail`, '{}', {}, allowed)).resolves.toEqual({ status: 503 });
  });

  it('does not follow a redirect', async () => {
    seen.length = 0;
    await expect(post(`${base}/redirect`, '{}', {}, allowed)).resolves.toEqual({ status: 307 });
    expect(seen).toEqual(['/redirect']);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const closed = new Promise<void>((resolve) => (silentClosed = resolve));
    await expect(post(`${base}/silent`, '{}', {}, { ...allowed, timeoutMs: 300 })).rejects.toThrow('no answer within 300 ms');
    // ... and hangs up: the receiver sees its connection closed.
    await closed;
  });

  it(`reads at most ${MAX_RESPONSE_BYTES} bytes of an answer`, async () => {
    const finished = new Promise<boolean>((resolve) => (hugeClosed = resolve));
    await expect(post(`${base}/huge`, '{}', {}, { ...allowed, timeoutMs: 10_000 })).resolves.toEqual({ status: 200 });
    // The receiver's 64 MiB were cut off, not read to the end (nor waited out until the timeout).
    expect(await finished).toBe(false);
  });

  it('refuses a loopback address the allowlist does not name, without connecting', async () => {
    seen.length = 0;
    const refused = await post(`${base}/ok`, '{}', {}, { allowed: NONE, timeoutMs: 1000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OutboundError);
    expect((refused as OutboundError).refused).toBe(true);
    expect((refused as OutboundError).message).toMatch(/127\.0\.0\.1 is a loopback address, refused/);
    expect(seen).toEqual([]);
  });

  it('refuses a name that resolves to a refused address (checked on the address connected to)', async () => {
    const port = (server.address() as AddressInfo).port;
    const refused = await post(`http://localhost:${port}/ok`, '{}', {}, { allowed: NONE, timeoutMs: 1000 }).catch((error: unknown) => error);
    expect((refused as OutboundError).refused).toBe(true);
    expect((refused as OutboundError).message).toMatch(/^localhost resolves to .* loopback address, refused/);
  });

  it('lets a named host through whatever it resolves to', async () => {
    const port = (server.address() as AddressInfo).port;
    // localhost may resolve to ::1 first; the receiver listens on 127.0.0.1 only, so either it answers or the connection is refused — never the policy.
    const outcome = await post(`http://localhost:${port}/ok`, '{}', {}, { allowed: parseAllowedHosts('localhost'), timeoutMs: 1000 }).catch((error: unknown) => error);
    if (outcome instanceof OutboundError) expect(outcome.refused).toBe(false);
    else expect(outcome).toEqual({ status: 204 });
  });
});
