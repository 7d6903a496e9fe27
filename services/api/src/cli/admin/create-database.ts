import { createDatabase } from '@entia/entities';
import type { AdminCommand } from './command';
import { configOf, exactly, guarded, helpRequested, openStore, parse } from './support';

/** `create-database <name>`: bootstraps a database (SPEC §4) and prints its first person's API key, once. */
export const createDatabaseCommand: AdminCommand = {
  name: 'create-database',
  summary: 'create a database and print its first person (owner) and API key, once',
  usage: 'usage: entia-admin create-database <name> [--owner-name "Ada Lovelace"] [--json]',
  run(args, io) {
    return guarded(this, io, async () => {
      const { positionals, values } = parse(args, { 'owner-name': { type: 'string', default: 'Owner' }, json: { type: 'boolean', default: false } });
      if (helpRequested(this, io, values)) return 0;
      const [name] = exactly(positionals, 1, 'the database name');
      const store = await openStore(configOf(io), io);
      try {
        const created = await createDatabase(store, name!, values['owner-name'] as string);
        io.out.write(
          values.json
            ? `${JSON.stringify(created)}\n`
            : [
                `Created database "${created.db}".`,
                `Owner person: ${created.personId}`,
                `Meta-types: ${Object.entries(created.types).map(([type, id]) => `${type}=${id}`).join(' ')}`,
                `API key (shown once, keep it safe): ${created.apiKey}`,
                '',
              ].join('\n'),
        );
        return 0;
      } finally {
        await store.close();
      }
    });
  },
};
