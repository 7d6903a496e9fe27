import type { RequestHandler } from 'express';
import { problems, sendProblem } from './problem';

/**
 * The process's shutdown state as requests see it. Once `shuttingDown` is set no request starts;
 * until then every request, and every route handler, is counted while it runs, so that shutdown
 * closes MongoDB and Redis only after the last one has finished.
 */
export class Lifecycle {
  /** Set on SIGTERM: /readyz answers 503 and new requests are refused. */
  shuttingDown = false;
  private running = 0;
  private waiters: Array<() => void> = [];
  private readonly closers = new Set<() => void>();

  /**
   * Work that would not end by itself (a change stream) is ended when shutdown begins, so that the
   * drain does not wait for it. The returned function takes `close` back.
   */
  whenShuttingDown(close: () => void): () => void {
    this.closers.add(close);
    return () => this.closers.delete(close);
  }

  /** Shutdown begins: no request starts any more, and open-ended work is ended. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const close of [...this.closers]) close();
  }

  /** Counts one piece of work as running; the returned function ends it (calling it twice is harmless). */
  begin(): () => void {
    this.running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.running--;
      if (this.running === 0) for (const wake of this.waiters.splice(0)) wake();
    };
  }

  /** Resolves once nothing counted is running. */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  get inFlight(): number {
    return this.running;
  }
}

/**
 * The first middleware: a request that reaches it after SIGTERM (one that was already on its way
 * on a kept-alive connection) is not started: 503 with `Connection: close`, safe to retry
 * elsewhere. Any other request is counted until its response is finished or abandoned.
 */
export function admission(lifecycle: Lifecycle): RequestHandler {
  return (_req, res, next) => {
    if (lifecycle.shuttingDown) {
      res.set('Connection', 'close');
      return sendProblem(res, problems.unavailable('shutting down'));
    }
    res.once('close', lifecycle.begin());
    next();
  };
}
