import { EntiaClient, EntiaError, jwtExpiresAt, type ClientOptions } from '@entia/client';
import { Peer, jwt, problem, type Answer, type Seen } from './support/peer';

const KEY = 'an-api-key-of-forty-three-characters-000000';
const HOUR = 3_600_000;
const START = Date.UTC(2030, 0, 1);

describe('jwtExpiresAt', () => {
  it('reads exp (seconds) as epoch milliseconds', () => {
    expect(jwtExpiresAt(jwt({ exp: 1_900_000_000 }))).toBe(1_900_000_000_000);
  });
  it('reads it where Node\'s Buffer does not exist (a browser), non-ASCII claims included', () => {
    const buffer = globalThis.Buffer;
    const token = jwt({ exp: 1_900_000_001, name: 'Jürgen 🚀' });
    Reflect.deleteProperty(globalThis, 'Buffer');
    try {
      expect(jwtExpiresAt(token)).toBe(1_900_000_001_000);
    } finally {
      globalThis.Buffer = buffer;
    }
  });
  it.each([['no exp', jwt({ sub: 'x' })], ['not a JWT', 'opaque'], ['garbage payload', 'a.!!!.c'], ['string exp', jwt({ exp: 'soon' } as never)]])(
    'is undefined for %s',
    (_what, token) => expect(jwtExpiresAt(token)).toBeUndefined(),
  );
});

describe('EntiaClient authentication against a real HTTP peer', () => {
  const peer = new Peer();
  let clock: number;
  /** Tokens the peer currently accepts. */
  let valid: Set<string>;
  /** How long from now the next issued token lives. */
  let lifetimeMs: number;
  let issued: number;

  /** The API in miniature: /api/auth swaps the key for a fresh token, every other path wants a valid one. */
  function api(request: Seen): Answer {
    if (request.path === '/api/auth') {
      if (request.authorization !== `Bearer ${KEY}`) return { status: 401, body: problem(401, 'Unknown or revoked API key.') };
      const token = jwt({ exp: Math.floor((clock + lifetimeMs) / 1000), n: ++issued });
      valid.add(token);
      return { status: 200, body: { accounts: [{ _id: 'acme', name: 'acme', user: { _id: 'p1', name: 'Ann' } }], token } };
    }
    const bearer = request.authorization?.replace(/^Bearer /, '');
    if (bearer === undefined || !valid.has(bearer)) return { status: 401, body: problem(401, 'expired') };
    return { status: 200, body: { ok: request.path } };
  }

  const bearers = (path: string) => peer.to(path).map((s) => s.authorization);
  const client = (options: Partial<ClientOptions> = {}) =>
    new EntiaClient({
      baseUrl: peer.baseUrl,
      apiKey: KEY,
      now: () => clock,
      retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async () => {},
      ...options,
    });

  beforeAll(() => peer.start());
  afterAll(() => peer.stop());
  beforeEach(() => {
    peer.reset();
    peer.answer = api;
    clock = START;
    valid = new Set();
    lifetimeMs = 48 * HOUR;
    issued = 0;
  });

  it('exchanges the key once, sends it only to /api/auth, and reuses the token for every call', async () => {
    const c = client();
    for (let i = 0; i < 5; i++) await expect(c.request('GET', `/x${i}`)).resolves.toEqual({ ok: `/x${i}` });
    const auth = peer.to('/api/auth');
    expect(auth).toHaveLength(1);
    expect(auth[0]!.authorization).toBe(`Bearer ${KEY}`);
    const [token] = valid;
    expect(peer.seen.filter((s) => s.path !== '/api/auth').map((s) => s.authorization)).toEqual(Array(5).fill(`Bearer ${token}`));
  });

  it('asks for a token limited to the constructor db', async () => {
    await client({ db: 'acme_2' }).request('GET', '/x');
    expect(peer.to('/api/auth')[0]!.url).toBe('/api/auth?db=acme_2');
  });

  it('concurrent first calls share one exchange', async () => {
    const c = client();
    const inner = api;
    // Hold the exchange open until every call has asked for a token.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    peer.answer = async (request) => {
      if (request.path === '/api/auth') await gate;
      return inner(request);
    };
    const calls = Array.from({ length: 10 }, (_, i) => c.request('GET', `/c${i}`));
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await expect(Promise.all(calls)).resolves.toHaveLength(10);
    expect(peer.to('/api/auth')).toHaveLength(1);
  });

  it('keeps the token until 5 minutes before exp, then exchanges the key again', async () => {
    const c = client();
    await c.request('GET', '/x');
    clock = START + 48 * HOUR - 6 * 60_000; // 6 minutes left: still good
    await c.request('GET', '/x');
    expect(peer.to('/api/auth')).toHaveLength(1);
    clock = START + 48 * HOUR - 4 * 60_000; // 4 minutes left: renew first
    await c.request('GET', '/x');
    expect(peer.to('/api/auth')).toHaveLength(2);
    const [first, second] = valid;
    expect(bearers('/x')).toEqual([`Bearer ${first}`, `Bearer ${first}`, `Bearer ${second}`]);
    expect(peer.seen.map((s) => s.path)).toEqual(['/api/auth', '/x', '/x', '/api/auth', '/x']);
  });

  it('a token that arrives already near expiry is used once, and the next call renews it', async () => {
    lifetimeMs = 2 * 60_000;
    const c = client();
    await c.request('GET', '/x');
    lifetimeMs = 48 * HOUR;
    await c.request('GET', '/x');
    await c.request('GET', '/x');
    expect(peer.seen.map((s) => s.path)).toEqual(['/api/auth', '/x', '/api/auth', '/x', '/x']);
  });

  it('honours a custom refresh margin', async () => {
    const c = client({ tokenRefreshMarginMs: HOUR });
    await c.request('GET', '/x');
    clock = START + 47 * HOUR + 1;
    await c.request('GET', '/x');
    expect(peer.to('/api/auth')).toHaveLength(2);
  });

  it('a 401 triggers exactly one re-exchange and the repeated call succeeds', async () => {
    const c = client();
    await c.request('GET', '/x');
    const [revoked] = valid;
    valid.delete(revoked!); // e.g. the server restarted with a new secret
    await expect(c.request('POST', '/y', { a: 1 })).resolves.toEqual({ ok: '/y' });
    expect(peer.to('/api/auth')).toHaveLength(2);
    const [fresh] = valid;
    expect(bearers('/y')).toEqual([`Bearer ${revoked}`, `Bearer ${fresh}`]);
    expect(peer.to('/y').map((s) => s.body)).toEqual([{ a: 1 }, { a: 1 }]);
    // The repeat is the same call: it carries the same Idempotency-Key.
    const [firstKey, secondKey] = peer.to('/y').map((s) => s.idempotencyKey);
    expect(firstKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(secondKey).toBe(firstKey);
    // The renewed token is then reused.
    await c.request('GET', '/z');
    expect(peer.to('/api/auth')).toHaveLength(2);
  });

  it('a second 401 after the re-exchange is thrown, not retried again', async () => {
    const c = client();
    peer.answer = (request) => (request.path === '/api/auth' ? api(request) : { status: 401, body: problem(401, 'no') });
    const error = await c.request('GET', '/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EntiaError);
    expect((error as EntiaError).status).toBe(401);
    expect(peer.seen.map((s) => s.path)).toEqual(['/api/auth', '/x', '/api/auth', '/x']);
  });

  it('concurrent calls refused with the same stale token share one re-exchange', async () => {
    const c = client();
    await c.request('GET', '/x');
    valid.clear();
    // The refusals arrive one by one, most of them after the first renewal has finished: those reuse
    // its token instead of exchanging the key again.
    let refusals = 0;
    peer.answer = async (request) => {
      const answer = api(request);
      if (answer.status === 401) await new Promise((resolve) => setTimeout(resolve, 30 * refusals++));
      return answer;
    };
    await expect(Promise.all(Array.from({ length: 5 }, () => c.request('GET', '/x')))).resolves.toHaveLength(5);
    expect(refusals).toBe(5);
    expect(peer.to('/api/auth')).toHaveLength(2);
  });

  it('a 401 from /api/auth itself is thrown with its problem, without looping', async () => {
    const c = client({ apiKey: 'revoked-key-0000000000' });
    const error = await c.request('GET', '/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EntiaError);
    expect(error).toMatchObject({ status: 401, problem: { detail: 'Unknown or revoked API key.' } });
    expect(peer.seen.map((s) => s.path)).toEqual(['/api/auth']);
    // A failed exchange is not cached: the next call tries again (and fails again, once).
    await expect(c.request('GET', '/x')).rejects.toMatchObject({ status: 401 });
    expect(peer.seen.map((s) => s.path)).toEqual(['/api/auth', '/api/auth']);
  });

  it('retries the exchange itself on 5xx', async () => {
    let failures = 1;
    peer.answer = (request) => (request.path === '/api/auth' && failures-- > 0 ? { status: 503, body: problem(503, 'down') } : api(request));
    await expect(client().request('GET', '/x')).resolves.toEqual({ ok: '/x' });
    expect(peer.to('/api/auth')).toHaveLength(2);
  });

  it('an anonymous client sends no Authorization header and never exchanges', async () => {
    peer.answer = () => ({ status: 200, body: { public: true } });
    const c = client({ apiKey: undefined });
    await expect(c.request('GET', '/api/acme/entity')).resolves.toEqual({ public: true });
    await c.request('POST', '/api/acme/entity', []);
    expect(peer.seen.map((s) => s.path)).toEqual(['/api/acme/entity', '/api/acme/entity']);
    expect(peer.seen.every((s) => s.authorization === undefined)).toBe(true);
    await expect(c.auth()).rejects.toThrow(/apiKey/);
  });

  it('an anonymous 401 is thrown as is', async () => {
    const c = client({ apiKey: undefined });
    await expect(c.request('POST', '/x', [])).rejects.toMatchObject({ status: 401 });
    expect(peer.seen).toHaveLength(1);
  });

  it('a given token is used without an exchange until it nears expiry', async () => {
    const given = jwt({ exp: Math.floor((START + HOUR) / 1000) });
    valid.add(given);
    const c = client({ token: given });
    await c.request('GET', '/x');
    expect(peer.seen.map((s) => s.authorization)).toEqual([`Bearer ${given}`]);
    clock = START + HOUR - 60_000;
    await c.request('GET', '/x');
    expect(peer.seen.map((s) => s.path)).toEqual(['/x', '/api/auth', '/x']);
  });

  it('a given token without an API key is sent as is, and its 401 thrown', async () => {
    const given = jwt({ exp: Math.floor((START - HOUR) / 1000) }); // expired: the client cannot renew it
    const c = client({ apiKey: undefined, token: given });
    await expect(c.request('GET', '/x')).rejects.toMatchObject({ status: 401 });
    expect(peer.seen.map((s) => [s.path, s.authorization])).toEqual([['/x', `Bearer ${given}`]]);
  });

  it('a token without exp is kept until the server refuses it', async () => {
    peer.answer = (request) => {
      if (request.path === '/api/auth') {
        const token = `opaque-${++issued}`;
        valid.add(token);
        return { status: 200, body: { accounts: [], token } };
      }
      return api(request);
    };
    const c = client();
    await c.request('GET', '/x');
    clock = START + 1000 * HOUR;
    await c.request('GET', '/x');
    expect(peer.to('/api/auth')).toHaveLength(1);
    valid.clear();
    await c.request('GET', '/x');
    expect(bearers('/x')).toEqual(['Bearer opaque-1', 'Bearer opaque-1', 'Bearer opaque-1', 'Bearer opaque-2']);
  });

  it('auth() exchanges the key, returns the accounts, and caches the token for later calls', async () => {
    const c = client({ db: 'acme' });
    const result = await c.auth();
    expect(result.accounts).toEqual([{ _id: 'acme', name: 'acme', user: { _id: 'p1', name: 'Ann' } }]);
    expect(valid.has(result.token)).toBe(true);
    await c.request('GET', '/x');
    expect(peer.seen.map((s) => s.url)).toEqual(['/api/auth?db=acme', '/x']);
    expect(bearers('/x')).toEqual([`Bearer ${result.token}`]);
  });

  it('an answer from /api/auth without a token is an error, not a cached undefined', async () => {
    peer.answer = () => ({ status: 200, body: { accounts: [] } });
    await expect(client().request('GET', '/x')).rejects.toThrow(/without a token/);
    expect(peer.seen).toHaveLength(1);
  });
});
