import { exportDatabase } from '@entia/entities';
import type { AdminCommand } from './command';
import { withDeps } from './deps';
import { exactly, guarded, helpRequested, parse, UsageError } from './support';

/** How long copying one object may take: the per-call bound of the service is for requests, not for copying gigabytes. */
export const OBJECT_COPY_TIMEOUT_MS = 30 * 60 * 1000;

/** `export <db> --out <dir>`: the database's documents, credentials and objects into a directory (docs/deployment.md, "Backup and restore"). */
export const exportCommand: AdminCommand = {
  name: 'export',
  summary: 'export a database (entities, history, credentials as NDJSON, and its file objects) into a directory',
  usage: [
    'usage: entia-admin export <db> --out <dir>',
    '  <dir> must be new or empty; it receives manifest.json (written last), NDJSON files and objects/.',
    '  It holds the database\'s credential hashes and every file: keep it as safe as the database.',
  ].join('\n'),
  run(args, io) {
    return guarded(this, io, async () => {
      const { positionals, values } = parse(args, { out: { type: 'string' } });
      if (helpRequested(this, io, values)) return 0;
      const [db] = exactly(positionals, 1, 'the database name');
      if (!values.out) throw new UsageError('missing --out <dir>');
      return withDeps(io, async (deps) => {
        const manifest = await exportDatabase(deps, db!, values.out!, {
          objectTimeoutMs: OBJECT_COPY_TIMEOUT_MS,
          report: (line) => io.err.write(`${line}\n`),
        });
        const { files } = manifest;
        io.out.write(
          `Exported "${db}" (schema ${manifest.schemaVersion}) to ${values.out}: ${files.entities.count} entities, ${files.history.count} history rows, ` +
            `${files.credentials.count} credentials, ${files.objects.count} objects.\n`,
        );
        return 0;
      });
    });
  },
};
