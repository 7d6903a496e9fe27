import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { ensureNode, majorOf, nodeVersionOf, pinnedNodeVersion, MACHINE_NODE_ENV } from '@entia/stack';

// The re-exec that puts `npm test` and `npm start` on the pinned Node, with real processes on two
// real Node binaries: a probe script (what cli.ts does, minus the stack) is launched on the
// machine's Node, and must end up running on the pinned one, with signals passed on and no orphan
// left when the launcher dies. It runs the built tools/stack/dist (as `npm test` does, after build).

const repo = path.join(__dirname, '..', '..', '..');
const reexecJs = path.join(repo, 'tools', 'stack', 'dist', 'reexec.js');
const pinned = pinnedNodeVersion(repo);

/**
 * A Node of another major than the pinned one, to launch from: the one that launched `npm test`
 * when it re-executed (ENTIA_MACHINE_NODE), or jest's own when jest was started on it directly.
 */
function otherNode(): string {
  const candidates = [process.env[MACHINE_NODE_ENV], process.execPath, '/usr/bin/node', '/usr/local/bin/node'];
  for (const bin of candidates) {
    if (!bin || !fs.existsSync(bin)) continue;
    const v = nodeVersionOf(bin).version;
    if (v && majorOf(v) !== majorOf(pinned)) return bin;
  }
  throw new Error(`no Node other than the pinned line ${majorOf(pinned)} on this machine: there is nothing to re-execute from`);
}

const PROBE = `
const { runOnPinnedNode, stopWhenOrphaned } = require(${JSON.stringify(reexecJs)});
stopWhenOrphaned();
runOnPinnedNode(process.env.PROBE_REPO, process.argv.slice(2), (l) => process.stderr.write('[stack] ' + l + '\\n')).then((code) => {
  if (code !== undefined) { process.exitCode = code; return; }
  const which = require('node:child_process').execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  // The handlers first: the test signals as soon as it reads the report. Each signal is printed,
  // and the exit waits a little, so that a duplicate would be printed too.
  for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => { console.log(s); setTimeout(() => process.exit(7), 300); });
  console.log(JSON.stringify({ version: process.versions.node, pid: process.pid, ppid: process.ppid, argv: process.argv.slice(2), nodeOnPath: which, machine: process.env.${MACHINE_NODE_ENV} }));
  setInterval(() => {}, 1 << 30);
}, (err) => { console.error('[stack] error: ' + err.message); process.exitCode = 1; });
`;

let dir: string;
let probe: string;
const started: ChildProcess[] = [];
const childPids: number[] = [];

beforeAll(async () => {
  // Fetched once per machine (and already there when `npm test` re-executed on it).
  await ensureNode(pinned, process.env, () => undefined);
});

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-reexec-'));
  fs.writeFileSync(path.join(dir, '.node-version'), `${pinned}\n`);
  probe = path.join(dir, 'probe.js');
  fs.writeFileSync(probe, PROBE);
});

afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const pid of childPids.splice(0)) if (alive(pid) && runsProbe(pid)) process.kill(pid, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Only a process of this test is killed: a pid that has ended may since be another's. */
function runsProbe(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(probe);
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface Report {
  version: string;
  pid: number;
  ppid: number;
  argv: string[];
  nodeOnPath: string;
  machine?: string;
}

/**
 * Launches the probe on `node` (through an npm script's shell when `npmScript`) and waits for the
 * (re-executed) probe's report line. Detached: its own process group, as a terminal would give it.
 */
async function launch(
  node: string,
  npmScript = false,
): Promise<{ launcher: ChildProcess; report: Report; output: () => string; exited: Promise<number | null> }> {
  const env: NodeJS.ProcessEnv = { ...process.env, PROBE_REPO: dir };
  // As a developer's shell would have it: not re-executed yet, not in an npm script unless asked.
  delete env.ENTIA_STACK_REEXEC;
  delete env[MACHINE_NODE_ENV];
  delete env.npm_lifecycle_event;
  const args = [probe, 'test', 'some/file.test.ts'];
  // `true &&`: as npm's `npm run build && node …`, so the shell stays the parent (no exec).
  const launcher = npmScript
    ? spawn('sh', ['-c', `true && "${node}" "${probe}" test some/file.test.ts`], { env: { ...env, npm_lifecycle_event: 'test' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : spawn(node, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(launcher);
  let err = '';
  launcher.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
  const lines = readline.createInterface({ input: launcher.stdout! });
  const report = await new Promise<Report>((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as Report));
    void exited.then((code) => reject(new Error(`the probe exited (${code}) before reporting: ${err}`)));
  });
  childPids.push(report.pid, report.ppid);
  const out: string[] = [];
  lines.on('line', (line) => out.push(line));
  const closed = new Promise<void>((resolve) => lines.once('close', resolve));
  return { launcher, report, output: () => `${err}${out.join('\n')}`, exited: exited.then(async (code) => (await closed, code)) };
}

async function gone(pid: number): Promise<void> {
  // stopWhenOrphaned looks once a second; bounded by jest's timeout, not asserted on.
  while (alive(pid)) await new Promise((r) => setTimeout(r, 100));
}

test('on another major, the command runs again on the pinned Node, with it first on PATH, and its exit code and SIGTERM pass through', async () => {
  const machine = otherNode();
  const { launcher, report, output, exited } = await launch(machine);
  expect(report.version).toBe(pinned);
  expect(report.nodeOnPath).toBe(pinned); // what the CLI spawns as `node` (jest, services) is pinned too
  expect(report.argv).toEqual(['test', 'some/file.test.ts']);
  expect(report.machine).toBe(machine);
  expect(report.pid).not.toBe(launcher.pid);
  expect(output()).toContain(`running \`test some/file.test.ts\` on the pinned Node ${pinned} (.node-version)`);

  launcher.kill('SIGTERM');
  // The child's own SIGTERM handler ran (it printed and exited 7) and the launcher passed the 7 on.
  expect(await exited).toBe(7);
  expect(output().match(/^SIGTERM$/gm)).toEqual(['SIGTERM']);
  expect(alive(report.pid)).toBe(false);
});

test('a launcher killed outright (SIGKILL) leaves no orphan: the re-executed command stops itself', async () => {
  const { launcher, report } = await launch(otherNode());
  launcher.kill('SIGKILL');
  await gone(report.pid);
  expect(alive(report.pid)).toBe(false);
});

test('on the pinned line itself there is no second process', async () => {
  const node = await ensureNode(pinned, process.env, () => undefined);
  const { launcher, report, exited } = await launch(node.path);
  expect(report.version).toBe(pinned);
  expect(report.pid).toBe(launcher.pid);
  expect(report.machine).toBeUndefined();
  childPids.pop(); // its parent is jest
  launcher.kill('SIGTERM');
  expect(await exited).toBe(7);
});

test('a re-executed process that is still not on the pinned line refuses to loop', () => {
  const machine = otherNode();
  const r = spawnSync(machine, [probe, 'test'], {
    env: { ...process.env, PROBE_REPO: dir, ENTIA_STACK_REEXEC: '1' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(`which is Node ${nodeVersionOf(machine).version}, not ${pinned}: check ENTIA_NODE_BIN`);
});

describe.each([
  ['re-executed from the machine\'s Node', (): Promise<string> => Promise.resolve(otherNode())],
  ['on the pinned Node', async (): Promise<string> => (await ensureNode(pinned, process.env, () => undefined)).path],
])('under an npm script (%s)', (_, node) => {
  test('a SIGTERM to npm, which its shell dies of without passing on, still stops the command, once', async () => {
    const { launcher, report, output } = await launch(await node(), true);
    launcher.kill('SIGTERM'); // what npm does with a SIGTERM: pass it to the script's shell
    await gone(report.pid);
    await gone(report.ppid);
    expect(output().match(/^SIG[A-Z]+$/gm)).toEqual(['SIGTERM']);
  });

  test('a terminal Ctrl-C (SIGINT to the whole group) reaches the command once, and the shell waits for it', async () => {
    const { launcher, report, output, exited } = await launch(await node(), true);
    process.kill(-launcher.pid!, 'SIGINT');
    await exited; // the shell then ends by the SIGINT it got, as shells do
    // It waited: by the time it ended, the command (and a launcher) had finished stopping.
    expect(alive(report.pid)).toBe(false);
    expect(alive(report.ppid)).toBe(false);
    expect(output().match(/^SIG[A-Z]+$/gm)).toEqual(['SIGINT']);
  });
});
