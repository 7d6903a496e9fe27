import type { ChangeRecord, EntityChanged } from '@entia/domain';
import type { HistoryRow } from './history';

/**
 * Work a write leaves for the worker, stored in the same document write as the change itself
 * (the entity's outbox), so a lost job, a wiped Redis or a crashed worker can delay it but never
 * lose it. Each entry is idempotent: delivering it twice does no harm.
 */
export type OutboxEntry =
  /** Tell the entities that read this one (formulas, labels, inherited rights, references). */
  | { id: string; kind: 'changed'; change: EntityChanged; depth: number }
  /** Remove the objects of file values that are gone. */
  | { id: string; kind: 'delete-objects'; keys: string[] }
  /** A definition changed: rebuild the derived fields of its types' entities. */
  | { id: string; kind: 'reindex'; types: string[] }
  /** Record these changes in the history (until then readers of history record them first). */
  | { id: string; kind: 'history'; rows: HistoryRow[] }
  /** Publish this change to the database's change log (published at once after the commit, if it could be). */
  | { id: string; kind: 'event'; record: ChangeRecord };

/** The history rows among outbox entries: part of the entity's history until they are recorded. */
export const historyRowsIn = (outbox: readonly OutboxEntry[]): HistoryRow[] => outbox.flatMap((entry) => (entry.kind === 'history' ? entry.rows : []));
