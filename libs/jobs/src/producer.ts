import { randomBytes } from 'node:crypto';
import { Queue, type JobsOptions } from 'bullmq';
import { queueTelemetry } from '@entia/telemetry';
import type { RedisBreaker } from './breaker';
import { DEFAULT_JOB_OPTIONS, QUEUE_NAME, type JobData, type JobName } from './queue';

export type JobState = 'waiting' | 'active' | 'completed' | 'failed' | 'delayed' | 'prioritized' | 'waiting-children' | 'unknown';

export interface JobStatus {
  id: string;
  name: string;
  state: JobState;
  progress: unknown;
  attempts: number;
  result?: unknown;
  failedReason?: string;
}

/**
 * A new job id: 128 random bits, hex. BullMQ's own ids count up from 1, so anyone shown one id
 * could name every other job; these cannot be guessed, and their hex never contains the `:` BullMQ
 * refuses in custom ids.
 */
/** What `randomJobId` makes, unanchored: for ids that embed one. */
export const RANDOM_JOB_ID_SOURCE = '[0-9a-f]{32}';

export function randomJobId(): string {
  return randomBytes(16).toString('hex');
}

/**
 * The enqueueing side of the shared queue, typed by `JobTypes`. Calls go through the breaker of
 * the request-path client: while Redis is away they fail at once (`RedisUnavailableError`).
 */
export class JobProducer {
  private readonly queue: Queue;

  constructor(
    private readonly breaker: RedisBreaker,
    prefix: string,
    onError: (error: Error) => void,
  ) {
    // With tracing on, each job carries its producer's trace context (W3C traceparent in
    // its options) and the worker's processing span continues that trace; off, BullMQ's plain path.
    this.queue = new Queue(QUEUE_NAME, { connection: breaker.redis, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS, telemetry: queueTelemetry() });
    this.queue.on('error', onError);
  }

  /**
   * `jobId` makes the job idempotent: adding one that exists adds nothing. Without one the job gets
   * a random id (`randomJobId`), never BullMQ's counter.
   */
  async enqueue<N extends JobName>(name: N, data: JobData<N>, jobId: string = randomJobId(), options: JobsOptions = {}): Promise<string> {
    const job = await this.breaker.run(() => this.queue.add(name, data, { ...options, jobId }));
    return job.id ?? jobId;
  }

  async status(id: string): Promise<JobStatus | undefined> {
    // The state first, then the job: a job read first and completed in between was answered
    // `completed` with the `result` it did not have yet (null). BullMQ stores the return value in
    // the same step that moves the job to completed, so a job read after that state holds it.
    const state = (await this.breaker.run(() => this.queue.getJobState(id))) as JobState;
    if (state === 'unknown') return undefined;
    const job = await this.breaker.run(() => this.queue.getJob(id));
    if (!job) return undefined;
    return {
      id,
      name: job.name,
      state,
      progress: job.progress,
      attempts: job.attemptsMade,
      ...(state === 'completed' ? { result: job.returnvalue } : {}),
      ...(state === 'failed' ? { failedReason: job.failedReason } : {}),
    };
  }

  /** Jobs waiting or running, by state: the queue-depth metric. */
  counts(): Promise<Record<string, number>> {
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
