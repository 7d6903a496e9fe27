import { spawn } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { StackError } from './errors';
import type { Log } from './log';
import { ensureNode, majorOf, pinnedNodeVersion, NODE_VERSION_FILE } from './node-runtime';

/** Set in the re-executed CLI: guards against a loop, and tells it to watch its launcher. */
export const REEXEC_ENV = 'ENTIA_STACK_REEXEC';
/** The machine's node that launched the re-executed CLI (tools/stack/test/node-reexec.test.ts launches from it). */
export const MACHINE_NODE_ENV = 'ENTIA_MACHINE_NODE';

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs this CLI again on the pinned Node when the machine's is another major, so jest and every
 * process the CLI spawns (`process.execPath`, or `node` from PATH) run on the one supported line.
 * Resolves to the child's exit code, or undefined when this process already is the pinned line.
 */
export async function runOnPinnedNode(repo: string, argv: string[], log: Log): Promise<number | undefined> {
  const version = pinnedNodeVersion(repo);
  if (majorOf(process.versions.node) === majorOf(version)) return undefined;
  if (process.env[REEXEC_ENV]) {
    throw new StackError(`re-executed on ${process.execPath}, which is Node ${process.versions.node}, not ${version}: check ENTIA_NODE_BIN`);
  }
  const node = await ensureNode(version, process.env, log);
  log(`the machine's Node is ${process.versions.node}; running \`${argv.join(' ')}\` on the pinned Node ${node.version} (${NODE_VERSION_FILE}): ${node.path}`);
  const env = {
    ...process.env,
    PATH: `${path.dirname(node.path)}${path.delimiter}${process.env.PATH ?? ''}`,
    [REEXEC_ENV]: '1',
    [MACHINE_NODE_ENV]: process.execPath,
  };
  // Its own process group: a terminal Ctrl-C then reaches only us and is passed on once (a
  // second Ctrl-C still means "now" to it). It watches for our death itself (stopWhenOrphaned).
  const child = spawn(node.path, [process.argv[1]!, ...argv], { stdio: 'inherit', env, detached: true });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  for (const s of SIGNALS) process.on(s, forward);
  return new Promise<number>((resolve) => {
    child.once('error', (err) => {
      log(`cannot run ${node.path}: ${err.message}`);
      resolve(1);
    });
    child.once('exit', (code, signal) => {
      for (const s of SIGNALS) process.removeListener(s, forward);
      resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1));
    });
  });
}

/**
 * `start` and `test` stop (as on SIGTERM) when the process that started them goes away without
 * passing a signal on:
 * - re-executed, our launcher: killed outright (SIGKILL) it cannot, and we are in our own group;
 * - run by an npm script (`npm test`, `npm start`): npm passes a SIGTERM only to the script's
 *   shell, which dies of it and leaves us running, with the stack, under init.
 * A terminal's Ctrl-C is not affected: it reaches the whole foreground group, the shell waits for
 * us, and we get the signal once (two would mean "stop now").
 */
export function stopWhenOrphaned(): void {
  if (!process.env[REEXEC_ENV] && !process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      process.kill(process.pid, 'SIGTERM');
    }
  }, 1000);
  timer.unref();
}
