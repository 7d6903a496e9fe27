import { assertPortFree } from './ports';
import type { ServerProcess } from './process';
import type { ManagedServer, ServerName } from './types';

/** Wraps a ServerProcess into the public ManagedServer shape. */
export function managed(
  name: ServerName,
  port: number,
  proc: ServerProcess,
  opts: { ports?: number[]; afterStart?: () => Promise<void> } = {},
): ManagedServer {
  return {
    name,
    port,
    get pid() {
      return proc.running ? proc.pid : undefined;
    },
    logFile: proc.logFile,
    stop: () => proc.stop(),
    kill: () => proc.kill(),
    pause: () => proc.pause(),
    resume: () => proc.resume(),
    async restart() {
      await proc.stop();
      for (const p of opts.ports ?? [port]) await assertPortFree(p, name);
      await proc.start();
      await opts.afterStart?.();
    },
  };
}
