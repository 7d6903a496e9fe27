#!/usr/bin/env node
import { COMMANDS } from './admin/commands';
import { dispatch } from './admin/dispatch';

/**
 * `entia-admin`: the operator's commands, the same binary in the API image. Each
 * subcommand is a module of `./admin/` (the `AdminCommand` contract); this only dispatches.
 */
void dispatch(COMMANDS, process.argv.slice(2), {
  out: process.stdout,
  err: process.stderr,
  in: process.stdin,
  interactive: process.stdin.isTTY === true,
  env: process.env,
}).then(
  // Exit at once: a storage client's idle keep-alive sockets would otherwise hold the process.
  (code) => process.exit(code),
  () => process.exit(1),
);
