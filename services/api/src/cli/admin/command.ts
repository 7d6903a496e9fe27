/** Where a command reads and writes: the process's streams, or a test's. */
export interface AdminIo {
  out: NodeJS.WritableStream;
  err: NodeJS.WritableStream;
  in: NodeJS.ReadableStream;
  /** Whether `in` is a terminal a person answers at (a confirmation may be asked there). */
  interactive: boolean;
  /** The process environment the configuration is read from. */
  env: NodeJS.ProcessEnv;
}

/**
 * One `entia-admin` subcommand. Exit codes: 0 done, 1 failed (one clear line on `err`), 2 usage
 * (bad arguments; the usage printed).
 */
export interface AdminCommand {
  name: string;
  /** One line for `entia-admin --help`. */
  summary: string;
  /** `usage: entia-admin <name> …` and the options, printed on `--help` and after a usage error. */
  usage: string;
  run(args: string[], io: AdminIo): Promise<number>;
}
