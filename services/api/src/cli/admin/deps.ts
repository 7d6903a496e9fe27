import { closeDeps, openDeps, type Deps } from '../../deps';
import type { AdminIo } from './command';
import { answering, configOf, mongodb, redis, stderrLogger } from './support';

/** Opens what the API's use cases need (MongoDB, Redis, storage), runs `body` once MongoDB and Redis answer, and closes it all. */
export async function withDeps(io: AdminIo, body: (deps: Deps) => Promise<number>): Promise<number> {
  const config = configOf(io);
  // `answering` says what it waits for, in the command's words.
  const deps = openDeps(config, stderrLogger(), {});
  try {
    await answering([mongodb(deps.store), redis(deps.redis), ...(deps.cacheRedis === deps.redis ? [] : [redis(deps.cacheRedis)])], config, io);
    return await body(deps);
  } finally {
    await closeDeps(deps);
  }
}
