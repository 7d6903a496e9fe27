import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { majorOf, nodeVersionOf, pinnedNodeVersion, MACHINE_NODE_ENV } from '@entia/stack';

const run = promisify(execFile);
const repo = path.join(__dirname, '..', '..', '..');
const cli = path.join(repo, 'tools', 'stack', 'dist', 'cli.js');
const pinned = pinnedNodeVersion(repo);

/** A Node of another major than the pinned one: what a machine starts `npm run admin` on (issue 35). */
function otherNode(): string {
  for (const bin of [process.env[MACHINE_NODE_ENV], process.execPath, '/usr/bin/node', '/usr/local/bin/node']) {
    if (!bin || !fs.existsSync(bin)) continue;
    const v = nodeVersionOf(bin).version;
    if (v && majorOf(v) !== majorOf(pinned)) return bin;
  }
  throw new Error(`no Node other than the pinned line ${majorOf(pinned)} on this machine`);
}

/** The admin CLI as `npm run admin` starts it, with the local stack's state in `stateDir`. */
async function admin(args: string[], stateDir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  // Without the stack's settings from the caller: only what .stack/env says counts.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ENTIA_STACK_DIR: stateDir };
  try {
    const { stdout, stderr } = await run(otherNode(), [cli, 'admin', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('npm run admin', () => {
  let state: string;
  beforeEach(() => {
    state = fs.mkdtempSync(path.join(os.tmpdir(), 'entia-admin-state-'));
  });
  afterEach(() => fs.rmSync(state, { recursive: true, force: true }));

  it('runs entia-admin on the pinned Node, whatever Node starts it', async () => {
    const help = await admin(['--help'], state);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: entia-admin /);
    expect(help.stderr).toContain(`on the pinned Node ${pinned}`);
  });

  it("takes the running local stack's settings from .stack/env, and passes the exit code on", async () => {
    const without = await admin(['migrate', '--status'], state);
    expect(without.code).toBe(1);
    expect(without.stderr).toContain('REDIS_URL is required');
    fs.writeFileSync(path.join(state, 'env'), 'REDIS_URL=redis://127.0.0.1:1\nS3_ENDPOINT=http://127.0.0.1:1\n');
    const withEnv = await admin(['migrate', '--status'], state);
    expect(withEnv.code).toBe(1);
    expect(withEnv.stderr).not.toContain('REDIS_URL is required');
    expect(withEnv.stderr).not.toContain('S3_ENDPOINT is required');
    expect(withEnv.stderr).toContain('S3_ACCESS_KEY is required');
  });
});
