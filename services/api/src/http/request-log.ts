import type { RequestHandler } from 'express';
import type { IncomingMessage } from 'node:http';
import { stdSerializers, type Logger } from 'pino';
import { requestId } from './request-id';
import { serverAnswer } from './server';

declare module 'http' {
  interface IncomingMessage {
    /** The request's id (`X-Request-Id`), in every line logged for it. */
    id: string;
    /** A logger whose lines carry the request's id. */
    log: Logger;
  }
}

/**
 * The request log: an id per request (`X-Request-Id`), `req.log` carrying it, and one line per
 * answered request — `{req, res, responseTime}` (pino's standard serialisers, then `LOG_REDACTION`)
 * as `request completed` at info, `request errored` at error for a 5xx, `request aborted` when the
 * connection closed first (the client left, or the server cut it off: then with the server's
 * answer). Requests `probe` picks (the kubelet's /healthz and /readyz, every few seconds per pod)
 * are logged at debug, a 503 (a probe's own "not ready") too; any other 5xx of theirs
 * is a fault and stays at error. At info they were some 20 MB a day per pod of nothing; the readiness
 * handler logs a warning of its own when the dependencies that are down change. Not pino-http:
 * it serialises every request into a child logger up front, whether or not a line is ever
 * written (measured at 70 µs of CPU per request, a quarter of a cached GET's); here the
 * serialisers run only for a line that is written, and the child logger is made only when a
 * handler logs.
 */
export function requestLog(logger: Logger, probe: (req: IncomingMessage) => boolean): RequestHandler {
  return (req, res, next) => {
    const id = requestId(req, res);
    const started = Date.now();
    let child: Logger | undefined;
    req.id = id;
    Object.defineProperty(req, 'log', { get: () => (child ??= logger.child({ reqId: id })), configurable: true });
    const quiet = probe(req);
    res.once('close', () => {
      const aborted = !res.writableFinished;
      // A connection the server answered and closed itself (408: the body not in within
      // REQUEST_TIMEOUT_MS; 400: the client hung up mid-body) ends its request with that answer,
      // whatever the app was doing then: the client's event, not the app's failure.
      const answer = aborted ? serverAnswer(req) : undefined;
      const status = answer?.status ?? res.statusCode;
      const failed = status >= 500;
      const level = failed && !(quiet && status === 503) ? 'error' : quiet ? 'debug' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const message = aborted ? 'request aborted' : failed ? 'request errored' : 'request completed';
      const served = stdSerializers.res(res);
      if (answer) served.statusCode = answer.status;
      logger[level]({ req: stdSerializers.req(req), res: served, responseTime: Date.now() - started }, message);
    });
    next();
  };
}

/** The kubelet's (and compose's) probes: logged at debug. Metrics are scraped on their own port. */
export function isProbe(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?')[0];
  return path === '/healthz' || path === '/readyz';
}
