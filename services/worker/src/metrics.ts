import type { Worker } from 'bullmq';
import type { JobProducer } from '@entia/jobs';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Job durations and failures observed on `worker`, and the queue's depth read at scrape time. */
export function workerMetrics(worker: Worker, queue: JobProducer): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'entia_job_duration_seconds',
    help: 'Time from a job starting to it completing or failing.',
    labelNames: ['name', 'outcome'],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60],
    registers: [registry],
  });
  const failures = new Counter({ name: 'entia_job_failures_total', help: 'Job attempts that failed.', labelNames: ['name'], registers: [registry] });
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

  const observe = (name: string, outcome: string, startedAt: number | undefined) => {
    if (startedAt !== undefined) duration.observe({ name, outcome }, (Date.now() - startedAt) / 1000);
  };
  worker.on('completed', (job) => observe(job.name, 'completed', job.processedOn));
  worker.on('failed', (job) => {
    if (!job) return;
    failures.inc({ name: job.name });
    observe(job.name, 'failed', job.processedOn);
  });
  return registry;
}
