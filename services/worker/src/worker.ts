import type { Config } from '@entia/config';
import { SchemaCache } from '@entia/derive';
import { Generations, JobProducer, QUEUE_NAME, createRedis } from '@entia/jobs';
import { Worker } from 'bullmq';
import type { Registry } from 'prom-client';
import type { Logger } from 'pino';
import { workerMetrics } from './metrics';
import { createProcessors, dispatcher } from './processors';
import { Store } from '@entia/store';
import { ObjectStore } from '@entia/files';

export interface RunningWorker {
  worker: Worker;
  registry: Registry;
  ready(): Promise<void>;
  /** Waits for running jobs to finish (BullMQ's graceful close), then drops the connections. */
  close(): Promise<void>;
}

export function startWorker(config: Config, logger: Logger): RunningWorker {
  const onRedisError = (err: Error) => logger.debug({ err }, 'redis connection error');
  const connection = createRedis(config.REDIS_URL, 'worker', onRedisError);
  const commands = createRedis(config.REDIS_URL, 'command', onRedisError);
  const store = Store.fromSettings(config);
  const objects = ObjectStore.fromSettings(config);
  const queue = new JobProducer(commands, config.REDIS_PREFIX, onRedisError);
  const generations = new Generations(commands, config.REDIS_PREFIX, config.CACHE_TTL_SECONDS);
  const schemas = new SchemaCache(store, generations);
  const worker = new Worker(QUEUE_NAME, dispatcher(createProcessors({ store, objects, jobs: queue, generations, schemas })), {
    connection,
    prefix: config.REDIS_PREFIX,
    concurrency: config.WORKER_CONCURRENCY,
    // A job whose worker died (no lock renewal) is taken up again after this.
    lockDuration: config.WORKER_LOCK_MS,
    stalledInterval: Math.min(config.WORKER_LOCK_MS, 30_000),
  });
  worker.on('error', (err) => logger.warn({ err }, 'worker error'));
  worker.on('failed', (job, err) => logger.warn({ err, jobId: job?.id, name: job?.name }, 'job failed'));

  return {
    worker,
    registry: workerMetrics(worker, queue),
    async ready() {
      await Promise.all([commands.ping(), store.ping()]);
      if (!worker.isRunning()) throw new Error('worker is not running');
    },
    async close() {
      await worker.close();
      await queue.close();
      await store.close();
      connection.disconnect();
      commands.disconnect();
    },
  };
}
