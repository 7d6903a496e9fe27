import type { AdminCommand, AdminIo } from './command';
import { oneLine } from './support';

export function usageOf(commands: readonly AdminCommand[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'usage: entia-admin <command> [options]   (configuration from the environment, as the API\'s)',
    '',
    'commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'entia-admin <command> --help shows a command\'s options. Exit codes: 0 done, 1 failed, 2 usage.',
  ].join('\n');
}

/** Picks the subcommand and runs it; `--help` and unknown commands are answered here. */
export async function dispatch(commands: readonly AdminCommand[], argv: string[], io: AdminIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out.write(`${usageOf(commands)}\n`);
    return 0;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.err.write(`${name === undefined ? 'entia-admin: no command given' : `entia-admin: unknown command "${name}"`}\n${usageOf(commands)}\n`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    // A command lets nothing through; this is the last guard against a stack trace.
    io.err.write(`entia-admin ${command.name}: ${oneLine(error)}\n`);
    return 1;
  }
}
