import { hostname } from 'node:os';
import type { Job } from 'bullmq';
import type { JobData, JobName, JobResult } from '@entia/jobs';

type Processor<N extends JobName> = (job: Job<JobData<N>, JobResult<N>, N>) => Promise<JobResult<N>>;

const workerId = `${hostname()}:${process.pid}`;

/** One processor per job type of `JobTypes`; the compiler refuses a missing one. */
export const processors: { [N in JobName]: Processor<N> } = {
  ping: async (job) => ({
    message: job.data.message,
    requestedAt: job.data.requestedAt,
    processedAt: new Date().toISOString(),
    worker: workerId,
  }),
};

export async function dispatch(job: Job): Promise<unknown> {
  const processor = processors[job.name as JobName] as Processor<JobName> | undefined;
  // An unknown name comes from a newer API than this worker: fail it so a retry can reach a newer worker.
  if (!processor) throw new Error(`no processor for job type ${JSON.stringify(job.name)}`);
  return processor(job as Job<JobData<JobName>, JobResult<JobName>, JobName>);
}
