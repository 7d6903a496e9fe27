import type { Properties } from '@entia/domain';

/**
 * What one run of imports has seen: the entities it created and the targets it loaded, as they
 * were then. Later imports of the run check and label their references against these copies
 * instead of reading them again (on FerretDB every such read is a scan of the collection, so a
 * seed reading its targets per batch grows with the square of its size). For one tool run
 * importing related data, such as the benchmark's seed: a target changed by others meanwhile is
 * checked as it was, and a reference to one deleted meanwhile is dropped by the worker's next
 * refresh of the entity, as for any reference whose target goes.
 */
export class ImportSession {
  private readonly seen = new Map<string, Properties>();

  /** Of `ids`, those seen, and those to load. */
  split(ids: readonly string[]): { known: Map<string, Properties>; missing: string[] } {
    const known = new Map<string, Properties>();
    const missing: string[] = [];
    for (const id of ids) {
      const properties = this.seen.get(id);
      if (properties) known.set(id, properties);
      else missing.push(id);
    }
    return { known, missing };
  }

  remember(entities: Iterable<readonly [string, Properties]>): void {
    for (const [id, properties] of entities) this.seen.set(id, properties);
  }
}
