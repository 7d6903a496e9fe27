import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '@entia/stack';
import { ServerProcess } from '../src/process';
import { takesConnections } from '../src/tcp-probe';

// A server the stack starts is waited for while its process works, not for a fixed time (issue 31):
// real processes, a stall window of one second.

jest.setTimeout(60_000);

let dir: string;
let server: ServerProcess | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-server-start-'));
});

afterEach(async () => {
  await server?.kill();
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

async function testServer(command: string, args: string[], extra: { signal?: AbortSignal } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const proc = new ServerProcess({
    label: 'test server',
    command,
    args: args.map((a) => a.replace('$PORT', String(port))),
    dir,
    logName: 'server.log',
    port,
    ready: (timeoutMs) => takesConnections(port, '127.0.0.1', timeoutMs),
    stallMs: 1000,
    log: () => undefined,
    ...extra,
  });
  server = proc;
  return proc;
}

// Busy for three stall windows before it listens: a server slow to start on a loaded machine.
const SLOW_STARTER = `const end = Date.now() + 3000; while (Date.now() < end); require('node:net').createServer().listen($PORT, '127.0.0.1');`;

test('a process that works is waited for past the stall window until it answers', async () => {
  const proc = await testServer(process.execPath, ['-e', SLOW_STARTER]);
  await proc.start();
  expect(proc.running).toBe(true);
});

test('a process that does no work and does not answer is stopped after the stall window, and the error says why', async () => {
  const proc = await testServer('sleep', ['600']);
  await expect(proc.start()).rejects.toThrow(
    /^test server did not answer and showed no sign of progress for 1s \(no CPU time used, nothing logged; it does not take connections yet\); log: .*server\.log$/,
  );
  expect(proc.running).toBe(false);
});

test('Ctrl-C while waiting stops the process', async () => {
  const ctrlC = new AbortController();
  const proc = await testServer('sleep', ['600'], { signal: ctrlC.signal });
  const starting = proc.start();
  setTimeout(() => ctrlC.abort(new Error('SIGINT while starting')), 300);
  await expect(starting).rejects.toThrow('SIGINT while starting');
  expect(proc.running).toBe(false);
});
