/**
 * Queue names and job payloads shared by the API (which enqueues) and the worker (which
 * processes). A job type exists once, here; both services import it from this file.
 */
export const QUEUE_NAME = 'entia' as const;

export interface JobTypes {
  /** Proves the API → Redis → worker → Redis → API round trip; does nothing else. */
  ping: {
    data: { message: string; requestedAt: string };
    result: { message: string; requestedAt: string; processedAt: string; worker: string };
  };
  /** A file value is gone: remove its object from storage (retried until it succeeds). */
  'delete-object': {
    data: { key: string };
    result: { key: string };
  };
  /** A type's definitions changed: rebuild the derived fields (search index) of its entities. */
  reindex: {
    data: { db: string; type: string };
    result: { entities: number };
  };
  /**
   * An entity was written or deleted: schedule the recomputation of the entities that read it
   * (SPEC §9). Sent by every write; the entity's state before and after is summarised here
   * because it may change again before the job runs.
   */
  changed: {
    data: EntityChanged;
    result: { scheduled: number };
  };
  /**
   * Recompute what an entity derives from others: cross-entity formulas, reference labels,
   * inherited rights, references to deleted entities. Coalesced per entity; `depth` counts the
   * cascade steps that led here, so a cycle that never settles is cut off.
   */
  refresh: {
    data: { db: string; entity: string; depth: number };
    result: { changed: boolean; cutOff?: true };
  };
  /** POST /api/{db}/aggregate: recompute every entity of a database. */
  rebuild: {
    data: { db: string };
    result: { entities: number };
  };
}

export interface EntityChanged {
  db: string;
  entity: string;
  /** The entity's type id (after the change; before it, for a deletion). */
  type: string | undefined;
  /** What happened to it. */
  event: 'created' | 'updated' | 'deleted';
  /** The properties whose values changed (for a creation or deletion: every property it has or had). */
  properties: string[];
  /** Whether any reference value changed. */
  references: boolean;
  /** Whether it has `_inheritrights` on (after the change). */
  inherits: boolean;
  /** Its `_parent`s before and after. */
  parents: string[];
  /** Every entity it referenced before or references after. */
  referenced: string[];
  depth: number;
}

/** Progress of a `rebuild` job, as GET /api/{db}/aggregate/{id} shows it. */
export interface RebuildProgress {
  done: number;
  total: number;
}

export type JobName = keyof JobTypes;
export type JobData<N extends JobName> = JobTypes[N]['data'];
export type JobResult<N extends JobName> = JobTypes[N]['result'];

/** Retries and retention every job gets unless its enqueue says otherwise. */
export const DEFAULT_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600, count: 10000 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;
