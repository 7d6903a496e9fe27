import type { Worker } from 'bullmq';
import { gaveUp, type JobProducer } from '@entia/jobs';
import type { PendingWork } from '@entia/store';
import { DEPENDENCY_UP_METRIC, measureDependencies, type Check } from '@entia/health';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { OutboxBacklog } from './sweep';

/**
 * Job durations and failures observed on `worker`; the queue's depth, the derived work still
 * pending (entities marked, and how long the oldest has waited) and whether MongoDB and Redis
 * answer (`entia_dependency_up`) read at scrape time.
 */
export function workerMetrics(
  worker: Worker,
  queue: JobProducer,
  pending: PendingWork,
  /** What the sweep's last scan of outboxes left unsettled. */
  outboxes: () => OutboxBacklog,
  dependencies: { checks: Record<string, Check>; timeoutMs: number },
): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // From the checks /readyz asks, at scrape time: readiness stays 200 through an outage.
  new Gauge({
    ...DEPENDENCY_UP_METRIC,
    registers: [registry],
    async collect() {
      await measureDependencies(dependencies.checks, dependencies.timeoutMs, (dependency, up) => this.set({ dependency }, up));
    },
  });
  const duration = new Histogram({
    name: 'entia_job_duration_seconds',
    help: 'Time from a job starting to it completing or failing.',
    labelNames: ['name', 'outcome'],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60],
    registers: [registry],
  });
  const failures = new Counter({ name: 'entia_job_failures_total', help: 'Job attempts that failed.', labelNames: ['name'], registers: [registry] });
  const givenUp = new Counter({
    name: 'entia_jobs_given_up_total',
    help: 'Jobs that failed their last attempt (derived work is re-driven by the sweep; a webhook delivery stays failed).',
    labelNames: ['name'],
    registers: [registry],
  });
  new Gauge({
    name: 'entia_queue_jobs',
    help: 'Jobs in the queue, by state.',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const counts = await queue.counts().catch(() => ({}));
      for (const [state, count] of Object.entries(counts)) this.set({ state }, count);
    },
  });

  // One read of the marks per scrape, shared by the two gauges below: each sets its own value in its
  // own collect, so neither shows what an earlier scrape read.
  let reading: Promise<{ count: number; oldest: number | undefined } | undefined> | undefined;
  const derived = () =>
    (reading ??= pending
      .stats()
      .then((stats) => {
        const left = outboxes();
        const times = [stats.oldest?.getTime(), left.oldest?.getTime()].filter((time): time is number => time !== undefined);
        return { count: stats.count + left.count, oldest: times.length > 0 ? Math.min(...times) : undefined };
      })
      .catch(() => undefined)
      .finally(() => {
        reading = undefined;
      }));
  new Gauge({
    name: 'entia_derived_pending_oldest_seconds',
    help: 'Age of the oldest pending mark, or unsettled outbox the last scan could not deliver, at scrape time: how long some derived data has waited to be settled (0 when none waits).',
    registers: [registry],
    async collect() {
      const found = await derived();
      if (found) this.set(found.oldest === undefined ? 0 : (Date.now() - found.oldest) / 1000);
    },
  });
  new Gauge({
    name: 'entia_derived_pending_marks',
    help: 'Pending marks, and unsettled outboxes the last scan could not deliver: entities whose derived data (formulas, labels, inherited rights, outbox) is not settled yet.',
    registers: [registry],
    async collect() {
      const found = await derived();
      if (found) this.set(found.count);
    },
  });

  const observe = (name: string, outcome: string, startedAt: number | undefined) => {
    if (startedAt !== undefined) duration.observe({ name, outcome }, (Date.now() - startedAt) / 1000);
  };
  worker.on('completed', (job) => observe(job.name, 'completed', job.processedOn));
  worker.on('failed', (job, err) => {
    if (!job) return;
    failures.inc({ name: job.name });
    if (gaveUp(job, err)) givenUp.inc({ name: job.name });
    observe(job.name, 'failed', job.processedOn);
  });
  return registry;
}
