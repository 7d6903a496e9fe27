import { adminRebuildStatus, adminScheduleRebuild } from '@entia/entities';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AdminCommand } from './command';
import { exactly, guarded, helpRequested, parse } from './support';
import { withDeps } from './deps';

const POLL_MS = 1000;

/** `rebuild <db> [--wait]`: schedules the worker's rebuild of derived data; with --wait, its progress until done. */
export const rebuildCommand: AdminCommand = {
  name: 'rebuild',
  summary: "schedule the worker's rebuild of a database's derived data (formulas, labels, rights); --wait follows it",
  usage: 'usage: entia-admin rebuild <db> [--wait]\n  the worker does the work: with --wait, progress is printed until the job has completed or failed',
  run(args, io) {
    return guarded(this, io, async () => {
      const { positionals, values } = parse(args, { wait: { type: 'boolean', default: false } });
      if (helpRequested(this, io, values)) return 0;
      const [db] = exactly(positionals, 1, 'the database name');
      return withDeps(io, async (deps) => {
        const id = await adminScheduleRebuild(deps, db!);
        io.out.write(`Rebuild scheduled: ${id}\n`);
        if (!values.wait) return 0;
        let last = '';
        for (;;) {
          const status = await adminRebuildStatus(deps, db!, id);
          const { done, total } = status.progress as { done: number; total: number };
          const line = `${status.state}: ${done} of ${total} entities`;
          if (line !== last) io.out.write(`${line}\n`);
          last = line;
          if (status.state === 'completed') return 0;
          if (status.state === 'failed') {
            io.err.write(`entia-admin rebuild: the rebuild failed: ${status.failedReason ?? 'no reason given'}\n`);
            return 1;
          }
          await sleep(POLL_MS);
        }
      });
    });
  },
};
