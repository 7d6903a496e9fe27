import { closeDeps, openDeps, type Deps } from '../../deps';
import type { AdminIo } from './command';
import { configOf, connected, stderrLogger } from './support';

/** Opens what the API's use cases need (MongoDB, Redis, storage), runs `body` once MongoDB answers, and closes it all. */
export async function withDeps(io: AdminIo, body: (deps: Deps) => Promise<number>): Promise<number> {
  const config = configOf(io);
  // `connected` says what it waits for, in the command's words.
  const deps = openDeps(config, stderrLogger(), {});
  try {
    await connected(deps.store, config, io);
    return await body(deps);
  } finally {
    await closeDeps(deps);
  }
}
