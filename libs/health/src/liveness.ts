/** Why one part of a process will never serve again by itself; undefined while it can (or will, once its dependency answers). */
export type Stuck = () => string | undefined;

/**
 * The liveness verdict: each stuck part with its reason, empty while the process can serve or
 * will once its dependencies answer. An outage is never a reason (the connections recover from
 * one by themselves, and a restart would not bring a dependency back): only a state that a
 * restart ends, so that an orchestrator restarts the process for it and for nothing else.
 */
export function stuckParts(parts: Record<string, Stuck>): Record<string, string> {
  const stuck: Record<string, string> = {};
  for (const [name, reason] of Object.entries(parts)) {
    const why = reason();
    if (why !== undefined) stuck[name] = why;
  }
  return stuck;
}
