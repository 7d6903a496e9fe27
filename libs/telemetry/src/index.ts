import type { Telemetry } from 'bullmq';
import type { StartedTracing } from './sdk';
import { tracingSettings, type TracingConfig } from './settings';

export { REQUEST_ID_ATTRIBUTE, tracingSettings, type SamplerName, type TracingConfig, type TracingSettings } from './settings';
export { commandShape, queryShape, scrubbedAttributes, withoutCredentials } from './scrub';

let started: StartedTracing | undefined;

/**
 * Starts tracing when an OTLP endpoint is configured; returns whether it runs. Call it
 * before anything traced is loaded — express, ioredis, mongodb, bullmq: the instrumentations
 * patch those modules as they are required. Without an endpoint it loads nothing of
 * OpenTelemetry (the SDK is required here, not imported above), so tracing off costs nothing.
 */
export function startTracing(config: TracingConfig, defaultServiceName: string): boolean {
  if (started) return true;
  const settings = tracingSettings(config, defaultServiceName);
  if (!settings) return false;
  const { startSdk } = require('./sdk') as typeof import('./sdk');
  started = startSdk(settings);
  return true;
}

/**
 * For BullMQ's `telemetry` option of a queue or a worker: undefined when tracing is off, so BullMQ
 * runs its untraced path.
 */
export function queueTelemetry(): Telemetry | undefined {
  return started?.queueTelemetry;
}

/**
 * Exports the spans still buffered and stops tracing; nothing when it is off. For shutdown: a
 * collector that does not answer costs those spans after `waitMs`, never the clean exit of a
 * process whose grace period (SHUTDOWN_TIMEOUT_MS) is shorter than the exporter's 10 s timeout.
 */
export async function stopTracing(waitMs = 3000): Promise<void> {
  const running = started;
  started = undefined;
  if (!running) return;
  let timer: NodeJS.Timeout | undefined;
  const givenUp = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
    timer.unref();
  });
  await Promise.race([running.shutdown().catch(() => undefined), givenUp]);
  clearTimeout(timer);
}
