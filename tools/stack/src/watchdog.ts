import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * Exit hooks do not run when the parent is SIGKILLed (a jest worker torn down, an OOM kill,
 * `kill -9`), and our servers are detached, so they would live on. A tiny companion process
 * holds the read end of a pipe from us: when it sees EOF — which the kernel delivers however
 * we die — it stops the pids we registered (SIGTERM, SIGKILL after 5 s) and removes our temp
 * dirs. Protocol, one line each: "+pid", "-pid", "d<dir>", "u<dir>".
 */
const SCRIPT = `
const fs = require('fs');
const pids = new Set(), dirs = new Set();
let buf = '';
process.on('SIGINT', () => {}); process.on('SIGHUP', () => {});
const alive = (p) => { try { process.kill(p, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const kill = (p, s) => { try { process.kill(p, s); } catch {} };
process.stdin.on('data', (d) => {
  buf += d;
  for (let i; (i = buf.indexOf('\\n')) >= 0; buf = buf.slice(i + 1)) {
    const op = buf[0], arg = buf.slice(1, i);
    if (op === '+') pids.add(Number(arg)); else if (op === '-') pids.delete(Number(arg));
    else if (op === 'd') dirs.add(arg); else if (op === 'u') dirs.delete(arg);
  }
});
process.stdin.on('end', async () => {
  for (const p of pids) kill(p, 'SIGTERM');
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && [...pids].some(alive)) await new Promise((r) => setTimeout(r, 100));
  for (const p of pids) kill(p, 'SIGKILL');
  for (const d of dirs) { try { fs.rmSync(d, { recursive: true, force: true }); } catch {} }
  process.exit(0);
});
`;

let dog: ChildProcess | undefined;

function send(line: string): void {
  if (!dog) {
    dog = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    dog.on('error', () => undefined);
    dog.stdin!.on('error', () => undefined); // watchdog gone: nothing better to do than carry on
    dog.unref();
    (dog.stdin as Socket).unref();
  }
  dog.stdin!.write(`${line}\n`);
}

export function watchPid(pid: number | undefined): () => void {
  if (!pid) return () => undefined;
  send(`+${pid}`);
  return () => send(`-${pid}`);
}

export function watchDir(dir: string): () => void {
  send(`d${dir}`);
  return () => send(`u${dir}`);
}
