import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { notReadyReason, waitApiReady } from '../src/api-ready';

// `npm start` waits for the API's /readyz without a fixed deadline (issue 31), saying in one line
// why it is not ready yet — the API's own `detail` — and again only when that changes.

jest.setTimeout(60_000);

test.each<[number, string, string]>([
  [503, JSON.stringify({ status: 503, detail: 'starting: mongodb unreachable (connect ECONNREFUSED 127.0.0.1:1)' }), 'starting: mongodb unreachable (connect ECONNREFUSED 127.0.0.1:1)'],
  [503, JSON.stringify({ status: 503, title: 'Service Unavailable' }), 'HTTP 503'],
  [502, '<html>Bad Gateway</html>', 'HTTP 502'],
  [503, JSON.stringify({ detail: '   ' }), 'HTTP 503'],
])('a %i answer %s is not ready because: %s', (status, body, reason) => {
  expect(notReadyReason(status, body)).toBe(reason);
});

/** An API stand-in whose /readyz answers what `answer` says at the time. */
async function readyz(answer: () => { status: number; detail?: string }): Promise<{ port: number; close(): void }> {
  const server = http.createServer((_req, res) => {
    const { status, detail } = answer();
    res.writeHead(status, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ status, detail }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

test('an API that answers 503 for longer than the stall window is waited for, each reason said once', async () => {
  const started = Date.now();
  const api = await readyz(() => {
    const ms = Date.now() - started;
    if (ms < 3500) return { status: 503, detail: `starting: mongodb unreachable (Server selection timed out after ${1000 + (ms % 3)} ms)` };
    if (ms < 4500) return { status: 503, detail: 'the stored schema is older than this version needs: run entia-admin migrate' };
    return { status: 200 };
  });
  const lines: string[] = [];
  try {
    await waitApiReady(api.port, { log: (l) => lines.push(l), stallMs: 1000 });
  } finally {
    api.close();
  }
  expect(lines).toEqual([
    expect.stringMatching(/^waiting for the API to be ready: starting: mongodb unreachable \(Server selection timed out after 100\d ms\)$/),
    'waiting for the API to be ready: the stored schema is older than this version needs: run entia-admin migrate',
  ]);
});

test('an API that does not answer /readyz at all for the stall window is a failure', async () => {
  const api = await readyz(() => ({ status: 200 }));
  api.close();
  await expect(waitApiReady(api.port, { log: () => undefined, stallMs: 1000 })).rejects.toThrow(
    'the API has not answered GET /readyz for 1s (it does not answer GET /readyz yet (ECONNREFUSED); see [api] output above)',
  );
});
