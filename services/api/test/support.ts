import { loadConfig, type Config } from '@entia/config';
import { closeDeps, createApp, createLogger, openDeps, type Deps } from '@entia/api';
import type { Express } from 'express';
import { randomBytes } from 'node:crypto';

/**
 * The configuration of the test stack (from the environment `npm test` sets up), quiet, with a
 * queue prefix of its own so test files running side by side never see each other's jobs.
 */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    REDIS_PREFIX: `t${randomBytes(6).toString('hex')}`,
    ...overrides,
  });
}

export interface TestApi {
  app: Express;
  deps: Deps;
  close(): Promise<void>;
}

/** The real app over real dependencies, in-process (supertest drives it without a port). */
export function testApi(overrides: Record<string, string> = {}): TestApi {
  const config = testConfig(overrides);
  const deps = openDeps(config, createLogger(config.LOG_LEVEL));
  return { app: createApp(deps), deps, close: () => closeDeps(deps) };
}
