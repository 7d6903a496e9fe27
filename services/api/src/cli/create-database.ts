import { createDatabaseCommand } from './admin/create-database';

/**
 * `create-database <name>`: kept as a thin alias of `entia-admin create-database` (docs, tests and
 * the image name this file).
 */
void createDatabaseCommand
  .run(process.argv.slice(2), { out: process.stdout, err: process.stderr, in: process.stdin, interactive: process.stdin.isTTY === true, env: process.env })
  .then(
    (code) => process.exit(code),
    () => process.exit(1),
  );
