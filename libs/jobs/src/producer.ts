import { Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
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

/** The enqueueing side of the shared queue, typed by `JobTypes`. */
export class JobProducer {
  private readonly queue: Queue;

  constructor(connection: Redis, prefix: string, onError: (error: Error) => void) {
    this.queue = new Queue(QUEUE_NAME, { connection, prefix, defaultJobOptions: DEFAULT_JOB_OPTIONS });
    this.queue.on('error', onError);
  }

  /** `jobId` makes the job idempotent: adding one that exists adds nothing. */
  async enqueue<N extends JobName>(name: N, data: JobData<N>, jobId?: string, options: JobsOptions = {}): Promise<string> {
    const job = await this.queue.add(name, data, { ...options, ...(jobId === undefined ? {} : { jobId }) });
    return job.id ?? '';
  }

  async status(id: string): Promise<JobStatus | undefined> {
    const job = await this.queue.getJob(id);
    if (!job) return undefined;
    const state = (await job.getState()) as JobState;
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
