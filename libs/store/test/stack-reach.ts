import type { Store } from '@entia/store';

/**
 * How long a test's store may take to reach the test stack's MongoDB: longer than the services'
 * 1 s default, since on a busy 2-core machine a first connect (socket and handshake) has taken
 * 1.4 s. The tests using it are about what the store does once connected, not about reachability
 * (store.test.ts, writer.test.ts and the outage tests keep their short limits).
 */
export const STACK_REACH_MS = 5000;

/**
 * Waits for a store's first connect to the test stack's MongoDB. On a busy 2-core machine that
 * connect may outlast the store's reach limit; the store then connects again, and until it has,
 * the driver answers "Topology is closed". A test that uses a store straight after opening it, and
 * is not about reaching the server, waits here first (20 s: far above any first connect seen).
 */
export function stackConnected(store: Pick<Store, 'whenConnected'>): Promise<void> {
  return store.whenConnected(AbortSignal.timeout(20_000));
}
