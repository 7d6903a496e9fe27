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
