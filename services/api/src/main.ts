import { loadConfigOrExit } from '@entia/config';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app';
import { closeDeps, openDeps } from './deps';
import { createLogger } from './logger';
import { ensureIndexes } from './admin/indexes';
import type { Lifecycle } from './routes/health';

/** Stops taking connections, lets in-flight requests finish (up to the grace period), then closes. */
async function drain(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(deadline);
}

async function main(): Promise<void> {
  const config = loadConfigOrExit('entia-api');
  const logger = createLogger(config.LOG_LEVEL);
  const deps = openDeps(config, logger);
  deps.objects.ensureBucket().catch((err: unknown) => logger.warn({ err }, 'could not ensure the bucket; /readyz will say so'));
  ensureIndexes(deps).catch((err: unknown) => logger.warn({ err }, 'could not ensure indexes; they are retried at the next start'));

  const lifecycle: Lifecycle = { shuttingDown: false };
  const server = createServer(createApp(deps, lifecycle));
  server.listen(config.PORT, config.HOST, () => {
    const { port } = server.address() as AddressInfo;
    logger.info({ port }, `listening on http://${config.HOST}:${port}`);
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    lifecycle.shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    await drain(server, config.SHUTDOWN_TIMEOUT_MS);
    await closeDeps(deps);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
