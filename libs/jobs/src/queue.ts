/**
 * Queue names and job payloads shared by the API (which enqueues) and the worker (which
 * processes). A job type exists once, here; both services import it from this file.
 */
export const QUEUE_NAME = 'entia' as const;

export interface JobTypes {
  /** A file value is gone: remove its object from storage (retried until it succeeds). */
  'delete-object': {
    data: { key: string };
    result: { key: string };
  };
  /**
   * Settle an entity (SPEC §9): deliver its outbox and recompute what it derives from others.
   * Only the fast path: the need is recorded in the database (pending marks, or the entity's own
   * outbox), and the worker's sweep settles whatever a lost job leaves. Coalesced per entity;
   * `depth` counts the cascade steps that led here. `own`: asked by a write of the entity, to
   * deliver its outbox only (coalesced apart from the settles its marks ask for).
   */
  settle: {
    data: { db: string; entity: string; depth: number; own?: true };
    result: { changed: boolean; cutOff?: true };
  };
  /**
   * POST /api/{db}/aggregate: recompute every entity of a database, in id order. A step job
   * (BullMQ's pattern): after each page the worker saves where it stands in the job's own data,
   * `after` (the last id settled) and `done` (how many so far), so a worker taking the job up
   * again (its worker died: a stalled job; or a retry) continues there instead of from the start.
   */
  rebuild: {
    data: { db: string; after?: string; done?: number };
    result: { entities: number };
  };
  /**
   * POST one change to one webhook, retried with backoff until WEBHOOK_RETRY_SECONDS
   * after the change. Enqueued by the worker's dispatcher under the id
   * `webhook-<webhook id>-<event id>`, so reading a change twice sends it once. `event` is the
   * change event as the change feed sends it (`ChangeEvent` of @entia/domain): the body.
   */
  'deliver-webhook': {
    data: { db: string; webhook: string; event: { id: string; at: string; entity: string; kind: string; [field: string]: unknown } };
    result: { delivered: boolean; status?: number; skipped?: 'gone' | 'inactive' };
  };
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
