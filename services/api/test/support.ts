import { loadConfig, type Config } from '@entia/config';
import { closeDeps, createApp, createLogger, openDeps, type Deps } from '@entia/api';
import type { Express } from 'express';
import type { DestinationStream } from 'pino';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// Jest loads this module once per test file: every API a test file makes shares this control
// database (its registry and API keys), and no other file's.
export const TEST_CONTROL_DB = `ctl_${randomBytes(6).toString('hex')}`;

/**
 * The configuration of the test stack (from the environment `npm test` sets up), quiet, with a
 * Redis prefix of its own and the test file's control database, so test files running side by side
 * never see each other's jobs, leases or pending work (a worker settles every pending mark of its
 * control database). `ENTIA_TEST_LOG_LEVEL` shows the services' logs when a test needs looking into.
 */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    ...process.env,
    LOG_LEVEL: process.env.ENTIA_TEST_LOG_LEVEL ?? 'silent',
    REDIS_PREFIX: `t${randomBytes(6).toString('hex')}`,
    MONGODB_CONTROL_DB: TEST_CONTROL_DB,
    ...overrides,
  });
}

/** What a process started by a test needs to share the in-process API's data and queues. */
export function sharedWith(api: TestApi): Record<string, string> {
  return { REDIS_PREFIX: api.deps.config.REDIS_PREFIX, MONGODB_CONTROL_DB: api.deps.config.MONGODB_CONTROL_DB };
}

export interface TestApi {
  app: Express;
  deps: Deps;
  close(): Promise<void>;
}

/**
 * The real app over real dependencies, in-process (supertest drives it without a port). Its log
 * goes to `log` when given (with `LOG_LEVEL` among the overrides), for a test that reads it.
 */
export function testApi(overrides: Record<string, string> = {}, log?: DestinationStream): TestApi {
  const config = testConfig(overrides);
  const deps = openDeps(config, createLogger(config.LOG_LEVEL, log));
  return { app: createApp(deps), deps, close: () => closeDeps(deps) };
}

/** An app listening on a free port of 127.0.0.1, for clients that need a real socket. */
export interface Listening {
  server: Server;
  url: string;
  /** Closes the server, and the connections still open (a change stream never ends by itself). */
  close(): Promise<void>;
}

export async function listening(app: Express): Promise<Listening> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
