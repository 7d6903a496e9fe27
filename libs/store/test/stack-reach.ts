/**
 * How long a test's store may take to reach the test stack's MongoDB: longer than the services'
 * 1 s default, since on a busy 2-core machine a first connect (socket and handshake) has taken
 * 1.4 s. The tests using it are about what the store does once connected, not about reachability
 * (store.test.ts, writer.test.ts and the outage tests keep their short limits).
 */
export const STACK_REACH_MS = 5000;
