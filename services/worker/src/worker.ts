import { cacheRedisUrl, type Config } from '@entia/config';
import { SchemaGate, expireHistory, openEntities } from '@entia/entities';
import { QUEUE_NAME, createRedis, gaveUp, pingRedis, redisStuck } from '@entia/jobs';
import { stuckParts } from '@entia/health';
import { Worker, type Job } from 'bullmq';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from 'pino';
import { workerMetrics } from './metrics';
import { readinessProbe, type WorkerReadiness } from './readiness';
import { whenUnreachable } from './unreachable';
import { createProcessors, dispatcher } from './processors';
import { startSweeper, type OutboxBacklog } from './sweep';
import { runPeriodically } from './periodic';
import { DatabaseRecords, MONGODB_COMMANDS_METRIC, countCommands } from '@entia/store';
import { deliverySettings, webhookBackoff } from './webhooks/deliver';
import { WebhookDispatcher } from './webhooks/dispatcher';
import { queueTelemetry } from '@entia/telemetry';

// The retention is counted in days: looking once an hour keeps an expired history at most an hour too long.
const HISTORY_EXPIRY_INTERVAL_MS = 60 * 60 * 1000;

export interface RunningWorker {
  worker: Worker;
  registry: Registry;
  /** Within READINESS_TIMEOUT_MS, whatever state Redis and MongoDB are in. */
  readiness(): Promise<WorkerReadiness>;
  /** Each part that will never work again by itself, with why (liveness fails then); empty while the worker can work, or will once its dependencies answer. */
  stuck(): Record<string, string>;
  /**
   * Waits for running jobs to finish (BullMQ's graceful close), then drops the connections; stops
   * waiting as soon as Redis is unreachable. Resolves false when jobs were still running then.
   */
  close(): Promise<boolean>;
}

export function startWorker(config: Config, logger: Logger): RunningWorker {
  const onRedisError = (err: Error) => logger.debug({ err }, 'redis connection error');
  // BullMQ's own connection: the transport of jobs, beside the application's.
  const connection = createRedis(config.REDIS_URL, 'worker', onRedisError, config.DEPENDENCY_TIMEOUT_MS);
  // The application's Redis calls go through breakers: jobs fail at once while Redis is away (BullMQ
  // retries them once it is back).
  const entities = openEntities(config, logger, {
    onRedisState: (role, available, reason) => {
      const which = role === 'cache' ? 'the cache\'s redis' : 'redis';
      if (available) logger.info(`${which} is back`);
      else logger.warn({ reason }, `${which} unavailable`);
    },
  });
  const { store, jobs: queue, changes, breaker, redis: commands, cacheRedis: cacheCommands } = entities;
  const cacheUrl = cacheRedisUrl(config);
  const deps = { ...entities, logger, records: new DatabaseRecords(store.registry), webhookDelivery: deliverySettings(config) };
  const handle = dispatcher(createProcessors(deps));
  // Jobs whose processor is running: those a close cut short.
  let active = 0;
  const counted = async (job: Job) => {
    active++;
    try {
      return await handle(job);
    } finally {
      active--;
    }
  };
  const worker = new Worker(QUEUE_NAME, counted, {
    connection,
    prefix: config.REDIS_PREFIX,
    concurrency: config.WORKER_CONCURRENCY,
    // A job whose worker died (no lock renewal) is taken up again after this.
    lockDuration: config.WORKER_LOCK_MS,
    stalledInterval: Math.min(config.WORKER_LOCK_MS, 30_000),
    settings: { backoffStrategy: webhookBackoff(config.WEBHOOK_BACKOFF_MS) },
    // Tracing on: each job's processing is a span in the trace of whoever enqueued it.
    telemetry: queueTelemetry(),
    // Started by the schema gate below, once the stored schema is current.
    autorun: false,
  });
  worker.on('error', (err) => logger.warn({ err }, 'worker error'));
  worker.on('failed', (job, err) => {
    if (!job || !gaveUp(job, err)) return logger.warn({ err, jobId: job?.id, name: job?.name }, 'job failed; it is tried again');
    // One line per job that ends failed: what it was about, and why (its attempts' lines are warnings).
    const { db, entity } = job.data as { db?: unknown; entity?: unknown };
    logger.error({ jobId: job.id, name: job.name, db, entity, attempts: job.attemptsMade, reason: err.message }, `${job.name} job gave up`);
  });
  // What the sweep's last scan of outboxes could not deliver (the metrics show it).
  let backlog: OutboxBacklog = { count: 0, oldest: undefined };
  /** The sweep, the webhook dispatcher and the history expiry: started with the jobs. */
  const startBackground = () => [
    // Changes to webhook deliveries. A dead worker's undispatched changes are taken over
    // after twice the job lock (a minute by default), the same notion of "this worker is gone".
    new WebhookDispatcher(
      { store, jobs: queue, changes, breaker, logger },
      createRedis(config.REDIS_URL, 'worker', onRedisError, config.DEPENDENCY_TIMEOUT_MS),
      { claimIdleMs: Math.max(5000, 2 * config.WORKER_LOCK_MS) },
    ).start(),
    startSweeper(deps, config.SWEEP_INTERVAL_MS, (left) => {
      backlog = left;
    }),
    runPeriodically(
      () => expireHistory(store, config.HISTORY_RETENTION_DAYS).then((expired) => expired > 0 && logger.info({ expired }, 'expired the history of deleted entities')),
      HISTORY_EXPIRY_INTERVAL_MS,
      (err) => logger.error({ err }, 'could not expire history; trying again next round'),
    ),
  ];

  const checks = { mongodb: () => store.ping(), redis: () => pingRedis(commands) };
  const registry = workerMetrics(worker, queue, store.registry.pending, () => backlog, { checks, timeoutMs: config.READINESS_TIMEOUT_MS });
  if (config.MONGODB_COMMAND_METRICS) countCommands(store, new Counter({ ...MONGODB_COMMANDS_METRIC, registers: [registry] }));
  // Set when close() begins: BullMQ's worker counts as running until its last job has finished.
  let closing = false;
  // No job, sweep or delivery on a schema older than the code's: the gate re-reads the
  // stored version every SCHEMA_RECHECK_MS and starts them once `entia-admin migrate` has brought it up.
  const schema = new SchemaGate(store, logger, { intervalMs: config.SCHEMA_RECHECK_MS }).start();
  let background: { stop(): Promise<unknown> }[] = [];
  // Why BullMQ's loop ended although nobody closed the worker: no job would run again (liveness fails).
  let jobsStopped: string | undefined;
  void schema.whenServing().then(() => {
    if (closing) return;
    background = startBackground();
    worker.run().then(
      () => {
        if (!closing) jobsStopped = 'the job loop ended without a shutdown';
      },
      (err: unknown) => {
        jobsStopped = `the job loop failed: ${err instanceof Error ? err.message : String(err)}`;
        logger.error({ err }, 'the worker stopped taking jobs');
      },
    );
  });
  const liveness = {
    mongodb: () => store.stuck,
    redis: () => redisStuck(commands) ?? redisStuck(connection),
    ...(cacheUrl ? { cache: () => redisStuck(cacheCommands) } : {}),
    jobs: () => jobsStopped,
  };
  return {
    worker,
    registry,
    readiness: readinessProbe(
      checks,
      config.READINESS_TIMEOUT_MS,
      () => !closing && worker.isRunning(),
      () => schema.reason,
    ),
    // Closing disconnects on purpose: alive until it exits.
    stuck: () => (closing ? {} : stuckParts(liveness)),
    async close() {
      closing = true;
      schema.stop();
      for (const part of background) await part.stop();
      // While Redis is away no job can be acknowledged (nor the connections closed politely), and
      // BullMQ's close would wait for it indefinitely: stop waiting then. Jobs not acknowledged
      // are taken up again once their locks expire (the jobs are written to run again safely).
      const watch = whenUnreachable(commands);
      const draining = worker.close().then(() => true);
      const closed = await Promise.race([draining, watch.unreachable.then(() => false)]);
      watch.stop();
      draining.catch((err: unknown) => logger.debug({ err }, 'worker close after Redis went away'));
      if (closed) await queue.close();
      else logger.warn({ active }, 'Redis is unreachable: closing without it; unacknowledged jobs run again once their locks expire');
      connection.disconnect();
      await entities.close({ jobs: false });
      return active === 0;
    },
  };
}
