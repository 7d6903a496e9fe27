import { canRead, type Caller } from '../rights';
import type { Filter } from '../query/ast';
import { matchesFilter } from '../query/match';
import type { ChangeRecord, Snapshot } from './record';

/**
 * How one change concerns one subscriber: `in-view` when they may read the entity after
 * it and it matches their filter then; `left-view` when that held only before (it was deleted, left
 * their filter, or they lost the right to read it: they learn it is gone, with no values); nothing
 * when neither held.
 */
export type Delivery = 'in-view' | 'left-view';

/** Whether the filters hold for a snapshot; a filter on a property it left out holds (see `Snapshot`). */
function snapshotMatches(filters: readonly Filter[], snapshot: Snapshot): boolean {
  return filters.every((filter) => snapshot.partial.includes(filter.property) || matchesFilter(filter, snapshot.properties));
}

const visible = (snapshot: Snapshot | undefined, callers: readonly Caller[], filters: readonly Filter[]) =>
  snapshot !== undefined && callers.some((caller) => canRead(snapshot.properties, caller)) && snapshotMatches(filters, snapshot);

/**
 * The delivery of `record` to whoever reads as any of `callers` (a stream's one caller; a
 * webhook's owners) with `filters`; undefined: not theirs to see.
 */
export function deliveryOf(record: ChangeRecord, callers: readonly Caller[], filters: readonly Filter[]): Delivery | undefined {
  if (visible(record.after, callers, filters)) return 'in-view';
  if (visible(record.before, callers, filters)) return 'left-view';
  return undefined;
}
