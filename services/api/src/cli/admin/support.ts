import { ConfigError, loadConfig, type Config } from '@entia/config';
import { AdminError } from '@entia/entities';
import { failureReason } from '@entia/health';
import { redisConnectError, whenRedisReady } from '@entia/jobs';
import { Store } from '@entia/store';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { AdminCommand, AdminIo } from './command';

/** A usage error: the command prints it with its usage and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** `node:util` parseArgs with `--help` added; its errors (unknown option, missing value) become usage errors. */
export function parse<O extends Options>(args: string[], options: O) {
  try {
    return parseArgs({ args, allowPositionals: true, strict: true, options: { ...options, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** The configuration from `io.env`; a bad value is one line (the loader's, naming the variable). */
export function configOf(io: AdminIo): Config {
  try {
    return loadConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new AdminError(`configuration: ${error.message}`);
    throw error;
  }
}

/** Said when MongoDB has not answered this long after the command started: a slow first answer says nothing yet. */
const QUIET_WAIT_MS = 2000;

/** A dependency a command waits for: once it answers, and why it has not yet. */
export interface Awaited {
  name: string;
  answered(signal: AbortSignal): Promise<void>;
  why(): unknown;
}

export const mongodb = (store: Store): Awaited => ({
  name: 'MongoDB',
  answered: (signal) => store.whenConnected(signal),
  why: () => (store.connectionState.kind === 'connecting' ? store.connectionState.lastError : undefined),
});

export const redis = (client: Redis): Awaited => ({ name: 'Redis', answered: (signal) => whenRedisReady(client, signal), why: () => redisConnectError(client) });

/**
 * Waits until each dependency has answered (their connections keep trying: started together
 * with them, a command waits instead of failing in its first second), up to ADMIN_WAIT_MS. Says
 * once on stderr what it waits for, and gives up with one line naming what did not answer.
 */
export async function answering(dependencies: Awaited[], config: Pick<Config, 'ADMIN_WAIT_MS'>, io: AdminIo): Promise<void> {
  const waiting = new Set(dependencies);
  const what = () => [...waiting].map(({ name, why }) => (why() === undefined ? name : `${name} (${failureReason(why())})`)).join(', ');
  const seconds = config.ADMIN_WAIT_MS / 1000;
  const said = setTimeout(() => io.err.write(`entia-admin: waiting for ${what()} to answer, up to ${seconds} s (ADMIN_WAIT_MS)\n`), QUIET_WAIT_MS);
  const signal = AbortSignal.timeout(config.ADMIN_WAIT_MS);
  try {
    await Promise.all(dependencies.map((dependency) => dependency.answered(signal).then(() => waiting.delete(dependency))));
  } catch {
    throw new AdminError(`did not answer within ${seconds} s: ${what()}`);
  } finally {
    clearTimeout(said);
  }
}

/** The store of a command that needs MongoDB alone, once it answers; close it when done. */
export function openStore(config: Config, io: AdminIo): Promise<Store> {
  const store = Store.fromSettings(config);
  return answering([mongodb(store)], config, io).then(
    () => store,
    async (error: unknown) => {
      await store.close();
      throw error;
    },
  );
}

/** A logger for the dependencies a command opens: warnings and worse on stderr, nothing on stdout (it holds the answer). */
export function stderrLogger(): Logger {
  return pino({ level: 'warn', base: { service: 'entia-admin' }, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination(2));
}

/**
 * Runs a command body and turns what it throws into the contract's exit codes: a usage error is
 * the message and the usage (2), any other failure one line (1), never a stack trace. Errors of
 * the drivers are reduced to their first line; they never hold a credential (URLs are the
 * configuration's, and the drivers print hosts, not passwords).
 */
export async function guarded(command: Pick<AdminCommand, 'name' | 'usage'>, io: AdminIo, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError || (error instanceof AdminError && error.kind === 'usage')) {
      io.err.write(`entia-admin ${command.name}: ${error.message}\n${command.usage}\n`);
      return 2;
    }
    io.err.write(`entia-admin ${command.name}: ${oneLine(error)}\n`);
    return 1;
  }
}

export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? '').replace(/\/\/[^/@\s]*@/g, '//***@') || (error as Error)?.name || 'failed';
}

/** `--help`: the usage on stdout, exit 0. */
export function helpRequested(command: Pick<AdminCommand, 'usage'>, io: AdminIo, values: { help?: boolean | undefined }): boolean {
  if (values.help) io.out.write(`${command.usage}\n`);
  return values.help === true;
}

export function exactly(positionals: string[], count: number, what: string): string[] {
  if (positionals.length !== count) throw new UsageError(positionals.length < count ? `missing ${what}` : `unexpected argument "${positionals[count]}"`);
  return positionals;
}
