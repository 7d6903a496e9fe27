// First: tracing must be in place before the modules it instruments load (./tracing).
import './tracing';
import { loadConfigOrExit } from '@entia/config';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { healthServer } from './health-server';
import { startWorker } from './worker';
import { stopTracing } from '@entia/telemetry';

function main(): void {
  const config = loadConfigOrExit('entia-worker');
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'worker' }, timestamp: pino.stdTimeFunctions.isoTime });
  const running = startWorker(config, logger);
  const server = healthServer(running, logger);
  server.listen(config.WORKER_PORT, config.HOST, () => {
    logger.info({ port: (server.address() as AddressInfo).port }, 'worker health endpoint listening');
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing running jobs');
    const deadline = setTimeout(() => {
      logger.error('running jobs did not finish in time; they will be retried by another worker');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    const finished = await running.close();
    server.close();
    // The spans of the last jobs, still buffered (none when tracing is off).
    await stopTracing();
    clearTimeout(deadline);
    // 1 when jobs were cut short (Redis went away under them): they run again elsewhere.
    logger.info({ finished }, 'stopped');
    process.exit(finished ? 0 : 1);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main();
