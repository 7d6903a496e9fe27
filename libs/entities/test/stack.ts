import { loadConfig } from '@entia/config';
import { openEntities, type Entities } from '@entia/entities';
import { randomBytes } from 'node:crypto';

/**
 * The use cases' dependencies over the real stack, opened as the API, the worker and the
 * benchmark open them (`openEntities`); each test file gets its own Redis prefix and control database.
 */
// Short, so a test of a write waiting for its turn is quick.
const WAIT_MS = 300;

const quiet = () => undefined;

export function openDeps(): Entities {
  const config = loadConfig({ ...process.env, REDIS_PREFIX: `t${randomBytes(6).toString('hex')}`, MONGODB_CONTROL_DB: `ctl_${randomBytes(6).toString('hex')}` });
  return openEntities(config, { debug: quiet, info: quiet, warn: quiet, error: quiet }, { connection: {}, writeWaitMs: WAIT_MS, onRedisState: quiet });
}
