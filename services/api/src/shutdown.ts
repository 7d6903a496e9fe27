import gracefulShutdown from 'http-graceful-shutdown';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Lifecycle } from './http/lifecycle';

export interface ShutdownOptions {
  server: Server;
  lifecycle: Lifecycle;
  logger: Logger;
  /** SHUTDOWN_TIMEOUT_MS: the process has exited by then, whatever hangs. */
  graceMs: number;
  /** Closes the dependencies; called once no request and no handler is running any more. */
  close(): Promise<void>;
}

/**
 * Drains the API on SIGTERM (and SIGINT), in this order:
 * 1. `/readyz` turns 503 and no request starts any more (`admission` answers 503 to any that
 *    arrives on a kept-alive connection);
 * 2. http-graceful-shutdown closes the listener, destroys idle keep-alive sockets, marks the
 *    responses in flight `Connection: close` and closes each socket once its response is sent;
 * 3. handlers still running (their client may have gone) are waited for;
 * 4. then MongoDB, Redis and the queue are closed, and the process exits 0.
 * At `graceMs` after the signal it exits 1 wherever it is: the orchestrator would kill it soon
 * after anyway, and a prompt exit lets the replacement start.
 */
export function drainOnSignal({ server, lifecycle, logger, graceMs, close }: ShutdownOptions): void {
  // Signals and exit are ours (`signals: ''`): the library would exit at once on a second signal,
  // and Ctrl-C under the stack's supervisor delivers SIGINT and then SIGTERM. Its own deadline
  // (destroying the sockets) is a backstop after ours, so that ours decides the exit code.
  const closeHttp = gracefulShutdown(server, { signals: '', timeout: graceMs + 1000, forceExit: false });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const startedAt = Date.now();
    lifecycle.shutDown();
    logger.info({ signal, inFlight: lifecycle.inFlight }, 'shutting down: finishing requests in flight');
    const deadline = setTimeout(() => {
      logger.error({ inFlight: lifecycle.inFlight, graceMs }, 'requests did not finish within the grace period; exiting');
      process.exit(1);
    }, graceMs);
    try {
      await closeHttp();
    } catch (err) {
      logger.warn({ err }, 'closing the HTTP server failed; waiting for the handlers regardless');
    }
    await lifecycle.idle();
    await close();
    clearTimeout(deadline);
    logger.info({ ms: Date.now() - startedAt }, 'stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
