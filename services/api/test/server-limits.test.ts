import { randomBytes } from 'node:crypto';
import { clientErrorProblem } from '../src/http/server';
import { API_MAIN, freePort, spawnService, stackEnv, waitForStatus, type Spawned } from './processes';
import { exchange, parse, type Parsed } from './raw-http';
import { TEST_CONTROL_DB } from './support';

/**
 * The API process's HTTP server (issue 14), as `main.ts` starts it: slow clients are cut off within
 * a documented bound (REQUEST_TIMEOUT_MS, checked every second), and what Node refuses before the
 * app sees a request (a malformed request, headers over 16 KiB, an unsupported `Expect`) is
 * answered as problem details. Raw sockets, so that the test controls every byte and its timing.
 */

const REQUEST_TIMEOUT_MS = 1500;
/** How late past the timeout the answer may come: Node checks every second, plus slack for a busy machine. */
const SLACK_MS = 1000 + 1500;

function expectProblem(text: string, status: number): Parsed {
  const answer = parse(text);
  expect({ status: answer.status, type: answer.headers.get('content-type') }).toEqual({ status, type: 'application/problem+json' });
  expect(answer.body).toMatchObject({ status, type: expect.stringMatching(/^urn:entia:problem:[a-z-]+$/), title: expect.any(String), detail: expect.any(String) });
  return answer;
}

describe('clientErrorProblem: what Node refused, as the answer', () => {
  it.each<[string | undefined, number | undefined]>([
    ['ERR_HTTP_REQUEST_TIMEOUT', 408],
    ['HPE_HEADER_OVERFLOW', 431],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413],
    ['HPE_INVALID_METHOD', 400],
    ['HPE_INVALID_CHUNK_SIZE', 400],
    ['HPE_UNEXPECTED_CONTENT_LENGTH', 400],
    ['ECONNRESET', undefined],
    ['EPIPE', undefined],
    ['ETIMEDOUT', undefined],
    [undefined, undefined],
  ])('%s: %s', (code, status) => {
    expect(clientErrorProblem(code)?.status).toBe(status);
  });
});

describe('the HTTP server of the API process (issue 14)', () => {
  let proc: Spawned;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    proc = spawnService(
      API_MAIN,
      stackEnv({
        PORT: String(port),
        MONGODB_CONTROL_DB: TEST_CONTROL_DB,
        REDIS_PREFIX: `sl${randomBytes(4).toString('hex')}`,
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      }),
    );
    await waitForStatus(`http://127.0.0.1:${port}/readyz`, (status) => status === 200, 20_000);
  }, 30_000);
  afterAll(async () => {
    await proc?.stop();
  });

  // A route that reads a body and needs no token: the long-query route (of a database that does not exist).
  const post = (length: number) =>
    `POST /api/nosuchdb/entity/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  it(`a body that stops coming: 408 problem and the connection closed, within REQUEST_TIMEOUT_MS + ${SLACK_MS} ms`, async () => {
    const { text, closedAfterMs } = await exchange(port, [post(100), '{"q": "']);
    expectProblem(text, 408);
    expect(parse(text).headers.get('connection')).toBe('close');
    expect(closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  it('a body dribbled a byte at a time: cut off at the same bound, however long it would go on', async () => {
    const body = JSON.stringify({ q: 'x'.repeat(60) });
    const { text, closedAfterMs } = await exchange(port, [post(body.length), ...body], 100);
    expectProblem(text, 408);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  it('headers that stop coming: 408 problem within the same bound', async () => {
    const { text, closedAfterMs } = await exchange(port, ['GET /healthz HTTP/1.1\r\nHost: localhost\r\n', 'X-Slow: 1\r\n'], 500);
    expectProblem(text, 408);
    expect(closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + SLACK_MS);
  });

  it('a body that arrives in time is served', async () => {
    const body = JSON.stringify({ q: 'on time' });
    const { text } = await exchange(port, [`${post(body.length)}${body}`.replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n')]);
    // Read and handled: the route's own answer (no such database), not a timeout.
    expect(parse(text).status).toBe(404);
    expect(parse(text).body).toMatchObject({ detail: 'No database "nosuchdb".' });
  });

  it('headers over 16 KiB: 431 problem', async () => {
    const { text } = await exchange(port, [`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expectProblem(text, 431);
  });

  it('a URL too long (an `in` of 1000 ids): 431 problem pointing at POST /api/{db}/entity/query', async () => {
    const ids = Array.from({ length: 1000 }, () => randomBytes(12).toString('hex')).join(',');
    const { text } = await exchange(port, [`GET /api/somedb/entity?_type.reference.in=${ids} HTTP/1.1\r\nHost: localhost\r\n\r\n`]);
    const answer = expectProblem(text, 431);
    expect(answer.body.detail).toContain('POST /api/{db}/entity/query');
  });

  it.each([
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
    ['an unknown method', 'BREW /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nHost: localhost\r\nbroken header\r\n\r\n'],
    ['both Content-Length and chunked', 'POST /api/nosuchdb/entity/query HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a bad chunk size', 'POST /api/nosuchdb/entity/query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
  ])('%s: 400 problem', async (_name, raw) => {
    const { text } = await exchange(port, [raw]);
    expectProblem(text, 400);
  });

  it('an Expect other than 100-continue: 417 problem', async () => {
    const { text } = await exchange(port, [`GET /healthz HTTP/1.1\r\nHost: localhost\r\nExpect: teapot\r\nConnection: close\r\n\r\n`]);
    expectProblem(text, 417);
  });

  it('is still serving afterwards', async () => {
    expect(await waitForStatus(`http://127.0.0.1:${port}/healthz`, (status) => status === 200, 5_000)).toBe(200);
  });
});
