import { loadConfigOrExit } from '@entia/config';
import { Store } from '@entia/store';
import { parseArgs } from 'node:util';
import { CreateDatabaseError, createDatabase } from '@entia/entities';

const USAGE = 'usage: create-database <name> [--owner-name "Ada Lovelace"] [--json]';

/** `create-database <name>`: bootstraps a database and prints its first person's API key, once. */
async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { 'owner-name': { type: 'string', default: 'Owner' }, json: { type: 'boolean', default: false }, help: { type: 'boolean' } },
    });
  } catch (error) {
    process.stderr.write(`create-database: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { positionals, values } = parsed;
  if (values.help || positionals.length !== 1) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const config = loadConfigOrExit('create-database');
  const store = Store.fromSettings(config);
  try {
    const created = await createDatabase(store, positionals[0]!, values['owner-name']);
    process.stdout.write(
      values.json
        ? `${JSON.stringify(created)}\n`
        : [
            `Created database "${created.db}".`,
            `Owner person: ${created.personId}`,
            `Meta-types: ${Object.entries(created.types).map(([name, id]) => `${name}=${id}`).join(' ')}`,
            `API key (shown once, keep it safe): ${created.apiKey}`,
            '',
          ].join('\n'),
    );
    return 0;
  } catch (error) {
    process.stderr.write(`create-database: ${error instanceof CreateDatabaseError ? error.message : (error as Error).message}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

void main().then((code) => process.exit(code));
