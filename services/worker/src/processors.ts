import type { Job } from 'bullmq';
import { rebuildDatabase, settleEntity, type RebuildPosition, type SettleDeps } from '@entia/entities';
import type { JobData, JobName, JobResult, RebuildProgress } from '@entia/jobs';
import type { DatabaseRecords } from '@entia/store';
import { deliverWebhook, type DeliverySettings } from './webhooks/deliver';

type Processor<N extends JobName> = (job: Job<JobData<N>, JobResult<N>, N>) => Promise<JobResult<N>>;
export type Processors = { [N in JobName]: Processor<N> };

/** What the processors reach: the worker never talks HTTP to the API, only to the shared stores. */
export interface ProcessorDeps extends SettleDeps {
  records: DatabaseRecords;
  /** How webhook deliveries are made. */
  webhookDelivery: DeliverySettings;
}

/** One processor per job type of `JobTypes`; the compiler refuses a missing one. */
export function createProcessors(deps: ProcessorDeps): Processors {
  const { objects, records } = deps;
  return {
    // Removing an absent object succeeds, so a retry after a lost answer is harmless.
    'delete-object': async (job) => {
      await objects.remove(job.data.key);
      return { key: job.data.key };
    },

    settle: async (job) => {
      const record = await records.get(job.data.db);
      if (!record) return { changed: false };
      const outcome = await settleEntity(deps, job.data.db, record, job.data.entity, job.data.depth, { own: job.data.own === true });
      if (outcome.cutOff) await job.log(`cascade cut off at depth ${job.data.depth}: a cycle of formulas that does not settle`);
      return { changed: outcome.changed, ...(outcome.cutOff ? { cutOff: true } : {}) };
    },

    rebuild: async (job) => {
      const { db, after, done = 0 } = job.data;
      const record = await records.get(db);
      if (!record) return { entities: 0 };
      if (after !== undefined) await job.log(`taken up again after entity ${after}: ${done} entities were rebuilt before`);
      // BullMQ's step-job pattern: the position lives in the job's data, which a job taken up
      // again (stalled, or retried) keeps; the progress is what GET …/aggregate/{id} shows.
      const step = async (position: RebuildPosition, total: number) => {
        await job.updateData({ ...job.data, ...position });
        await job.updateProgress({ done: position.done, total: Math.max(total, position.done) } satisfies RebuildProgress);
      };
      return { entities: await rebuildDatabase(deps, db, record, { done, ...(after !== undefined ? { after } : {}) }, step) };
    },

    'deliver-webhook': (job) => deliverWebhook(deps, job),
  };
}

export function dispatcher(processors: Processors): (job: Job) => Promise<unknown> {
  return async (job) => {
    const processor = processors[job.name as JobName] as Processor<JobName> | undefined;
    // An unknown name comes from a newer API than this worker: fail it so a retry can reach a newer worker.
    if (!processor) throw new Error(`no processor for job type ${JSON.stringify(job.name)}`);
    return processor(job as Job<JobData<JobName>, JobResult<JobName>, JobName>);
  };
}
