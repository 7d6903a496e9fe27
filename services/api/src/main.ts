// First: tracing must be in place before the modules it instruments load (./tracing).
import './tracing';
import { loadConfigOrExit, parseCorsOrigins } from '@entia/config';
import type { AddressInfo } from 'node:net';
import { countCommands, MONGODB_COMMANDS_METRIC } from '@entia/store';
import { Counter, Registry } from 'prom-client';
import { createApp } from './app';
import { closeDeps, openDeps } from './deps';
import { createLogger } from './logger';
import { SchemaGate } from '@entia/entities';
import { schemaMetrics } from './http/schema-gate';
import { Lifecycle } from './http/lifecycle';
import { createHttpServer } from './http/server';
import { metricsServer } from './metrics-server';
import { drainOnSignal } from './shutdown';
import { stopTracing } from '@entia/telemetry';
import { failureReason, retryUntilDone } from '@entia/health';

function main(): void {
  const config = loadConfigOrExit('entia-api');
  const logger = createLogger(config.LOG_LEVEL);
  const deps = openDeps(config, logger);
  // Until storage answers, file routes answer 503 and /readyz names it; tried again until the bucket is there.
  const bucketing = new AbortController();
  retryUntilDone(() => deps.objects.ensureBucket(parseCorsOrigins(config.CORS_ORIGINS)), {
    signal: bucketing.signal,
    onFailure: (err, attempt) => {
      if (attempt === 1) logger.warn({ reason: failureReason(err) }, 'could not ensure the bucket: trying again until storage answers; /readyz says so meanwhile');
    },
  }).then(
    ({ created, cors }) => {
      if (created) logger.info({ bucket: deps.objects.bucket, cors }, 'bucket created');
      // MinIO: browsers may upload as its server-wide MINIO_API_CORS_ALLOW_ORIGIN allows.
      if (cors === 'unsupported') logger.info('storage keeps no per-bucket CORS rule; its own CORS settings decide which pages may upload');
    },
    () => undefined,
  );
  const registry = new Registry();
  if (config.MONGODB_COMMAND_METRICS) countCommands(deps.store, new Counter({ ...MONGODB_COMMANDS_METRIC, registers: [registry] }));
  // Indexes and data migrations are `entia-admin migrate`'s: the API only reads the
  // stored schema version, and serves nothing while it is older than this code's (re-read every SCHEMA_RECHECK_MS).
  const schema = new SchemaGate(deps.store, logger, { intervalMs: config.SCHEMA_RECHECK_MS, onChange: schemaMetrics(registry) }).start();

  const lifecycle = new Lifecycle();
  const server = createHttpServer(createApp(deps, lifecycle, registry, schema), { requestTimeoutMs: config.REQUEST_TIMEOUT_MS, logger });
  // Metrics on their own port, which neither the Service nor the Ingress routes (docs/deployment.md).
  const metrics = metricsServer(registry, logger);
  for (const [what, listener, port] of [
    ['API', server, config.PORT],
    ['metrics', metrics, config.METRICS_PORT],
  ] as const) {
    // A port that is taken is a deployment mistake: say which one in one line and stop.
    listener.once('error', (err: NodeJS.ErrnoException) => {
      logger.fatal({ port, code: err.code }, `cannot listen for ${what} on ${config.HOST}:${port}: ${err.message}`);
      process.exit(1);
    });
    listener.listen(port, config.HOST, () => {
      const bound = (listener.address() as AddressInfo).port;
      logger.info({ port: bound }, what === 'API' ? `listening on http://${config.HOST}:${bound}` : `metrics on http://${config.HOST}:${bound}/metrics`);
    });
  }

  drainOnSignal({
    server,
    lifecycle,
    logger,
    graceMs: config.SHUTDOWN_TIMEOUT_MS,
    close: async () => {
      bucketing.abort();
      schema.stop();
      // Scrapes go on while requests drain; not waited for: a scraper's keep-alive holds no work.
      metrics.close();
      metrics.closeAllConnections();
      await closeDeps(deps);
      // The spans of the last requests, still buffered (none when tracing is off).
      await stopTracing();
    },
  });
}

main();
