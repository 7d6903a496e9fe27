import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startMailpit, type ManagedServer } from '@entia/stack';

// A real Mailpit (issue 33, item 5) from the cache; built once per machine from the Go module proxy.
jest.setTimeout(300_000);

let dir: string;
let server: ManagedServer | undefined;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-mailpit-test-'));
});

afterEach(async () => {
  await server?.stop();
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One message by plain SMTP, each command answered before the next (no mail library: the server is what is tested). */
async function sendSmtp(port: number, to: string, subject: string): Promise<void> {
  const socket = net.connect(port, '127.0.0.1');
  let buffered = '';
  const waiting: ((line: string) => void)[] = [];
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    // A reply's last line is "<code> text" (a space after the code).
    for (let end = buffered.search(/^\d{3} .*\r\n/m); end >= 0; end = buffered.search(/^\d{3} .*\r\n/m)) {
      const stop = buffered.indexOf('\r\n', end) + 2;
      const reply = buffered.slice(0, stop);
      buffered = buffered.slice(stop);
      waiting.shift()?.(reply);
    }
  });
  const reply = () => new Promise<string>((resolve) => waiting.push(resolve));
  const say = async (line: string, code: string) => {
    const answer = reply();
    socket.write(`${line}\r\n`);
    expect([line, (await answer).slice(0, 3)]).toEqual([line, code]);
  };
  expect((await reply()).slice(0, 3)).toBe('220');
  await say('EHLO test.local', '250');
  await say('MAIL FROM:<from@entia.test>', '250');
  await say(`RCPT TO:<${to}>`, '250');
  await say('DATA', '354');
  await say(`From: from@entia.test\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\nhello\r\n.`, '250');
  await say('QUIT', '221');
  socket.destroy();
}

async function subjectsTo(apiUrl: string, to: string): Promise<string[]> {
  const list = (await (await fetch(`${apiUrl}/api/v1/messages`)).json()) as { messages: { To: { Address: string }[]; Subject: string }[] };
  return list.messages.filter((message) => message.To.some((address) => address.Address === to)).map((message) => message.Subject);
}

test('Mailpit takes a message by SMTP, shows it through its HTTP API, and keeps it across a crash', async () => {
  const mailpit = await startMailpit({ dir, log: () => undefined });
  server = mailpit;
  expect(mailpit.smtpUrl).toBe(`smtp://127.0.0.1:${mailpit.port}`);
  expect((await fetch(`${mailpit.apiUrl}/readyz`)).status).toBe(200);
  await sendSmtp(mailpit.port, 'someone@entia.test', 'first');
  expect(await subjectsTo(mailpit.apiUrl, 'someone@entia.test')).toEqual(['first']);

  const { pid } = mailpit;
  await mailpit.kill();
  expect(mailpit.pid).toBeUndefined();
  await mailpit.restart();
  expect(mailpit.pid).not.toBe(pid);
  expect(await subjectsTo(mailpit.apiUrl, 'someone@entia.test')).toEqual(['first']);
});
