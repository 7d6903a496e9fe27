import { resetApiKey } from '@entia/entities';
import type { AdminCommand } from './command';
import { exactly, guarded, helpRequested, parse } from './support';
import { withDeps } from './deps';

/** `reset-key <db> [--person <id>]`: revokes a person's API keys and prints a new one, once. */
export const resetKeyCommand: AdminCommand = {
  name: 'reset-key',
  summary: "revoke a person's API keys (default: the database's first owner) and print a new one, once",
  usage:
    'usage: entia-admin reset-key <db> [--person <id>] [--json]\n' +
    "  default person: the database's first owner (the earliest _owner of its database entity).\n" +
    '  Tokens of the revoked keys stop working within KEY_RECHECK_MS.',
  run(args, io) {
    return guarded(this, io, async () => {
      const { positionals, values } = parse(args, { person: { type: 'string' }, json: { type: 'boolean', default: false } });
      if (helpRequested(this, io, values)) return 0;
      const [db] = exactly(positionals, 1, 'the database name');
      return withDeps(io, async (deps) => {
        const reset = await resetApiKey(deps, db!, values.person as string | undefined);
        io.out.write(
          values.json
            ? `${JSON.stringify(reset)}\n`
            : `Revoked ${reset.revoked} API key(s) of person ${reset.person} in "${reset.db}".\nNew API key (shown once, keep it safe): ${reset.apiKey}\n`,
        );
        return 0;
      });
    });
  },
};
