import { hostname } from 'node:os';
import type { Job } from 'bullmq';
import { definitionMap, searchableOf } from '@entia/domain';
import { dependentIds, needsOwnRefresh, refreshEntity, scheduleRefresh, type DeriveDeps } from '@entia/derive';
import type { JobData, JobName, JobResult } from '@entia/jobs';
import type { ObjectStore } from '@entia/files';
import { DatabaseRecords } from '@entia/store';

type Processor<N extends JobName> = (job: Job<JobData<N>, JobResult<N>, N>) => Promise<JobResult<N>>;
export type Processors = { [N in JobName]: Processor<N> };

/** What the processors reach: the worker never talks HTTP to the API, only to the shared stores. */
export interface ProcessorDeps extends DeriveDeps {
  objects: ObjectStore;
}

const workerId = `${hostname()}:${process.pid}`;

/** One processor per job type of `JobTypes`; the compiler refuses a missing one. */
export function createProcessors(deps: ProcessorDeps): Processors {
  const { store, objects } = deps;
  const records = new DatabaseRecords(store.registry);
  const recordOf = (db: string) => records.get(db);
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
      const record = await recordOf(db);
      if (!record) return { entities: 0 };
      const entities = store.entities(db);
      const searchable = searchableOf(definitionMap(await entities.childrenOfType(type, record.meta.property)));
      const done = await entities.rederiveType(type, searchable, async (count, ids) => {
        // Cached lists (what `q` finds) and entities are stale now; formulas may read the
        // definitions that changed.
        await deps.generations.touch(db, ids);
        await scheduleRefresh(deps, db, ids, 1);
        await job.updateProgress(count);
      });
      return { entities: done };
    },

    // Fans a write out to the entities that read it, and to the entity itself when its own
    // formulas read others or its inherited rights may move. Retrying only schedules again what
    // coalesces with the first schedule.
    changed: async (job) => {
      const record = await recordOf(job.data.db);
      if (!record) return { scheduled: 0 };
      const schema = await deps.schemas.of(job.data.db, record);
      const ids = await dependentIds(deps, schema, job.data);
      if (needsOwnRefresh(schema, job.data)) ids.add(job.data.entity);
      await scheduleRefresh(deps, job.data.db, ids, job.data.depth + 1);
      return { scheduled: ids.size };
    },

    refresh: async (job) => {
      const record = await recordOf(job.data.db);
      if (!record) return { changed: false };
      const outcome = await refreshEntity(deps, job.data.db, record, job.data.entity, job.data.depth);
      if (outcome.cutOff) await job.log(`cascade cut off at depth ${job.data.depth}: a cycle of formulas that does not settle`);
      return { changed: outcome.changed, ...(outcome.cutOff ? { cutOff: true } : {}) };
    },

    // Every entity recomputed in id order; what a recomputation changes cascades as usual, so
    // entities read by ones recomputed earlier are caught up by their refresh jobs.
    rebuild: async (job) => {
      const record = await recordOf(job.data.db);
      if (!record) return { entities: 0 };
      const entities = store.entities(job.data.db);
      const total = await entities.count();
      let done = 0;
      for await (const ids of entities.allIds()) {
        for (const id of ids) await refreshEntity(deps, job.data.db, record, id, 1);
        done += ids.length;
        await job.updateProgress({ done, total: Math.max(total, done) });
      }
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
