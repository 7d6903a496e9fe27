import { migrateSchema, schemaStatus } from '@entia/entities';
import type { MigrateEvent } from '@entia/store';
import { hostname } from 'node:os';
import type { AdminCommand } from './command';
import { withDeps } from './deps';
import { configOf, exactly, guarded, helpRequested, openStore, parse } from './support';

function describe(event: MigrateEvent): string {
  switch (event.kind) {
    case 'start':
      return event.pending.length === 0
        ? `schema at version ${event.from}: nothing to migrate`
        : `schema at version ${event.from}; applying ${event.pending.map(({ version, name }) => `${version} (${name})`).join(', ')}`;
    case 'migration':
      return `migration ${event.version} (${event.name}): started`;
    case 'progress':
      return `migration ${event.version}: ${event.database}: ${event.message}`;
    case 'done':
      return `migration ${event.version} (${event.name}): done in ${(event.ms / 1000).toFixed(1)} s; schema version ${event.version}`;
  }
}

/** `migrate [--status]`: applies the pending migrations under a lock, printing progress; or shows where the schema stands. */
export const migrateCommand: AdminCommand = {
  name: 'migrate',
  summary: 'bring the schema (indexes, stored documents) up to this version; --status shows where it stands',
  usage:
    'usage: entia-admin migrate [--status] [--json]\n' +
    '  one run at a time (a lock in the control database; a crashed run\'s lock expires after 5 minutes).\n' +
    '  Cut short? Run it again: it resumes at the first migration not recorded as done.',
  run(args, io) {
    return guarded(this, io, async () => {
      const { positionals, values } = parse(args, { status: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } });
      if (helpRequested(this, io, values)) return 0;
      exactly(positionals, 0, '');
      if (values.status) {
        const store = await openStore(configOf(io), io);
        try {
          const status = await schemaStatus(store);
          // `stored: null` for a new installation: a JSON reader sees the field either way.
          if (values.json) io.out.write(`${JSON.stringify({ ...status, stored: status.stored ?? null })}\n`);
          else {
            io.out.write(`stored schema version: ${status.fresh ? 'none (a new installation: born current)' : status.stored}\n`);
            io.out.write(`this version needs: ${status.needed}\n`);
            for (const step of status.applied) io.out.write(`applied: ${step.version} (${step.name}) at ${step.at}\n`);
            for (const step of status.pending) io.out.write(`pending: ${step.version} (${step.name})\n`);
            io.out.write(`${status.verdict.serve ? (status.verdict.state === 'newer' ? `served: ${status.verdict.message}` : 'current: served') : status.verdict.message}\n`);
            for (const shared of status.sharedTypeNames) {
              io.out.write(
                `types sharing a name in ${shared.db}: "${shared.name}" is the name of ${shared.types.join(', ')}: rename or delete all but one ` +
                  `(POST /api/${shared.db}/entity/<type id> with its name value's _id and a new string; clients addressing types by name cannot tell them apart)\n`,
              );
            }
          }
          return 0;
        } finally {
          await store.close();
        }
      }
      // With Redis too: the writers' leases are held around every entity a migration rewrites.
      return withDeps(io, async (deps) => {
        // SIGTERM (a Job's pod on a draining node) or Ctrl-C: stop at the next document and give
        // the lock back, rather than leave it to block the next run until it expires.
        const stop = new AbortController();
        const onSignal = (signal: NodeJS.Signals) => {
          io.err.write(`entia-admin migrate: ${signal}: stopping at the next document\n`);
          stop.abort(new Error(`stopped by ${signal}: the lock is released; run migrate again to finish`));
        };
        process.once('SIGTERM', onSignal).once('SIGINT', onSignal);
        try {
          const outcome = await migrateSchema(deps.store, deps.leases, (event) => io.out.write(values.json ? `${JSON.stringify(event)}\n` : `${describe(event)}\n`), {
            holder: `entia-admin migrate on ${hostname()} (pid ${process.pid})`,
            signal: stop.signal,
          });
          if (!values.json) io.out.write(outcome.applied.length > 0 ? `schema version ${outcome.to}: migrated\n` : `schema version ${outcome.to}: current\n`);
          return 0;
        } finally {
          process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
        }
      });
    });
  },
};
