import { importDatabase } from '@entia/entities';
import type { AdminCommand } from './command';
import { withDeps } from './deps';
import { OBJECT_COPY_TIMEOUT_MS } from './export';
import { exactly, guarded, helpRequested, parse, UsageError } from './support';

/** `import --from <dir> [--as <name>]`: an export into a new or empty database. */
export const importCommand: AdminCommand = {
  name: 'import',
  summary: 'import an export directory into a new or empty database (--as: under another name)',
  usage: [
    'usage: entia-admin import --from <dir> [--as <name>]',
    '  Everything is verified (checksums, names, documents) before anything is written; a database',
    '  that exists or holds anything is refused. Its people sign in with their old API keys.',
  ].join('\n'),
  run(args, io) {
    return guarded(this, io, async () => {
      const { positionals, values } = parse(args, { from: { type: 'string' }, as: { type: 'string' } });
      if (helpRequested(this, io, values)) return 0;
      exactly(positionals, 0, '');
      if (!values.from) throw new UsageError('missing --from <dir>');
      return withDeps(io, async (deps) => {
        const summary = await importDatabase(deps, values.from!, {
          ...(values.as !== undefined ? { as: values.as } : {}),
          objectTimeoutMs: OBJECT_COPY_TIMEOUT_MS,
          report: (line) => io.err.write(`${line}\n`),
        });
        io.out.write(
          `Imported "${summary.from}" as "${summary.db}": ${summary.entities} entities, ${summary.history} history rows, ` +
            `${summary.credentials} credentials, ${summary.objects} objects.\n`,
        );
        return 0;
      });
    });
  },
};
