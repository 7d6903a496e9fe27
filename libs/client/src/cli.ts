#!/usr/bin/env node
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { EntiaClient } from './client';
import { EntiaError } from './errors';
import { generateTypes } from './generate';

const USAGE = `Usage: entia types <db> [--out <file.ts>] [--name <TypeName>] [--url <base URL>]

Writes TypeScript types of the database's definitions for client.db<Schema>('<db>').
The API key is read from ENTIA_API_KEY (never from the command line, where process lists and
shell history would keep it); the API's URL from --url or ENTIA_URL. Without --out, prints them.`;

/** `entia types <db>`: what the package's `bin` runs. Resolves with the exit code. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string' }, name: { type: 'string' }, url: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    process.stderr.write(`entia: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const [command, db, ...extra] = parsed.positionals;
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command !== 'types' || db === undefined || extra.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const baseUrl = parsed.values.url ?? env.ENTIA_URL;
  if (!baseUrl) {
    process.stderr.write('entia: give the API\'s URL with --url or ENTIA_URL\n');
    return 2;
  }
  const apiKey = env.ENTIA_API_KEY || undefined;
  try {
    const client = new EntiaClient({ baseUrl, db, ...(apiKey ? { apiKey } : {}) });
    const schema = await client.db(db).schema();
    const source = generateTypes(schema, { db, ...(parsed.values.name ? { typeName: parsed.values.name } : {}) });
    if (parsed.values.out) {
      await writeFile(parsed.values.out, source);
      process.stderr.write(`entia: ${schema.types.length} types of "${db}" written to ${parsed.values.out}\n`);
    } else process.stdout.write(source);
    return 0;
  } catch (error) {
    const message = error instanceof EntiaError ? `the API answered ${error.status}: ${error.message}` : (error as Error).message;
    process.stderr.write(`entia: ${message}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
