import type { AdminCommand } from './command';
import { createDatabaseCommand } from './create-database';
import { databasesCommand } from './databases';
import { deleteDatabaseCommand } from './delete-database';
import { exportCommand } from './export';
import { importCommand } from './import';
import { migrateCommand } from './migrate';
import { rebuildCommand } from './rebuild';
import { resetKeyCommand } from './reset-key';

/** Every `entia-admin` subcommand, in the order `--help` lists them. */
export const COMMANDS: readonly AdminCommand[] = [
  createDatabaseCommand,
  databasesCommand,
  deleteDatabaseCommand,
  resetKeyCommand,
  rebuildCommand,
  migrateCommand,
  exportCommand,
  importCommand,
];
