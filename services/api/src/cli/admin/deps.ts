import { closeDeps, openDeps, type Deps } from '../../deps';
import type { AdminIo } from './command';
import { configOf, stderrLogger } from './support';

/** Opens what the API's use cases need (MongoDB, Redis, storage), runs `body`, and closes it all. */
export async function withDeps(io: AdminIo, body: (deps: Deps) => Promise<number>): Promise<number> {
  const deps = openDeps(configOf(io), stderrLogger());
  try {
    return await body(deps);
  } finally {
    await closeDeps(deps);
  }
}
