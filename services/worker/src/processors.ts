import { hostname } from 'node:os';
import type { Job } from 'bullmq';
import { definitionMap, searchableOf } from '@entia/domain';
import type { JobData, JobName, JobResult } from '@entia/jobs';
import type { ObjectStore } from '@entia/files';
import type { Store } from '@entia/store';

type Processor<N extends JobName> = (job: Job<JobData<N>, JobResult<N>, N>) => Promise<JobResult<N>>;
export type Processors = { [N in JobName]: Processor<N> };

/** What the processors reach: the worker never talks HTTP to the API, only to the shared stores. */
export interface ProcessorDeps {
  store: Store;
  objects: ObjectStore;
}

const workerId = `${hostname()}:${process.pid}`;

/** One processor per job type of `JobTypes`; the compiler refuses a missing one. */
export function createProcessors({ store, objects }: ProcessorDeps): Processors {
  return {
    ping: async (job) => ({
      message: job.data.message,
      requestedAt: job.data.requestedAt,
      processedAt: new Date().toISOString(),
      worker: workerId,
    }),

    // Removing an absent object succeeds, so a retry after a lost answer is harmless.
    'delete-object': async (job) => {
      await objects.remove(job.data.key);
      return { key: job.data.key };
    },

    // Idempotent: it derives from the definitions as they are when it runs, so a retry or a
    // duplicate job ends in the same documents.
    reindex: async (job) => {
      const { db, type } = job.data;
      const record = await store.registry.database(db);
      if (!record) return { entities: 0 };
      const entities = store.entities(db);
      const searchable = searchableOf(definitionMap(await entities.childrenOfType(type, record.meta.property)));
      const done = await entities.rederiveType(type, searchable, (count) => job.updateProgress(count));
      return { entities: done };
    },
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
