import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { DomainError } from '@entia/domain';
import { FiguresNotReady, QueryTooSlow, ThumbnailsBusy } from '@entia/entities';
import { queryFailure } from '@entia/store';
import { HttpProblem, problems, sendProblem } from './problem';
import { unavailableDependency, unavailableProblem } from './unavailable';

const DOMAIN_STATUS = {
  invalid: [400, 'invalid-request', 'Bad Request'],
  unauthenticated: [401, 'unauthorized', 'Unauthorized'],
  forbidden: [403, 'forbidden', 'Forbidden'],
  'not-found': [404, 'not-found', 'Not Found'],
  conflict: [409, 'conflict', 'Conflict'],
  unprocessable: [422, 'unprocessable', 'Unprocessable Content'],
} as const;

/** A refusal of the domain rules, as the HTTP problem it stands for: the one place they are mapped. */
export function problemOf(error: DomainError): HttpProblem {
  const [status, slug, title] = DOMAIN_STATUS[error.kind];
  const headers: Record<string, string> = {
    ...(error.kind === 'unauthenticated' ? { 'WWW-Authenticate': 'Bearer realm="entia"' } : {}),
    ...(error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) }),
  };
  return new HttpProblem(status, slug, title, error.message, error.errors.length > 0 ? error.errors : undefined, headers);
}

/** body-parser signals its failures with `type` and `status`; each is the client's fault. */
function bodyParserProblem(error: { type?: unknown; limit?: unknown }): HttpProblem | undefined {
  switch (error.type) {
    case 'entity.too.large':
      return problems.payloadTooLarge(Number(error.limit));
    case 'entity.parse.failed':
      return problems.invalidRequest('The request body is not valid JSON.', [{ pointer: '', message: 'invalid JSON' }]);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return problems.unsupportedMediaType();
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return problems.invalidRequest('The request body was incomplete.');
    default:
      return undefined;
  }
}

/**
 * Other HTTP-layer errors that say themselves they are the client's fault (http-errors style, e.g.
 * a path that does not percent-decode, a body that does not decompress): their 4xx, our words.
 */
function clientError(error: { status?: unknown; statusCode?: unknown }): HttpProblem | undefined {
  const status = Number(error.status ?? error.statusCode);
  if (!Number.isInteger(status) || status < 400 || status > 499) return undefined;
  if (status === 400) return problems.invalidRequest('The request could not be read.');
  return new HttpProblem(status, 'client-error', 'Client Error', 'The request was refused.');
}

/**
 * A database operation that ran out of its time limit (MONGODB_TIMEOUT_MS), or that the engine
 * refused as busy, on any route: 503 with Retry-After, so clients back off and retry. The entity
 * write is one atomic document operation: a refused one stored nothing.
 */
function overloaded(error: unknown): HttpProblem | undefined {
  if (error instanceof QueryTooSlow) return problems.unavailable(error.message);
  if (error instanceof ThumbnailsBusy) return problems.unavailable(error.message);
  if (error instanceof FiguresNotReady) return problems.unavailable(error.message);
  const failure = queryFailure(error);
  if (failure !== 'timeout' && failure !== 'busy') return undefined;
  return problems.unavailable(failure === 'busy' ? 'The database is busy; try again shortly.' : 'The database did not answer in time; try again shortly.');
}


export const notFound: RequestHandler = (_req, res) => sendProblem(res, problems.notFound());

/**
 * Turns anything thrown into a problem response. Only errors we recognise keep their message; an
 * unexpected one is logged with its stack and answered with a bare 500.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    // An outage is expected, not a bug: one warning line without a stack, and a 503 on every route.
    const dependency = unavailableDependency(error);
    if (dependency) {
      (req.log ?? logger).warn({ dependency, reason: error instanceof Error ? error.message : String(error) }, 'dependency unavailable');
      if (res.headersSent) res.destroy();
      else sendProblem(res, unavailableProblem(dependency));
      return;
    }
    const problem =
      error instanceof HttpProblem
        ? error
        : error instanceof DomainError
          ? problemOf(error)
          : (bodyParserProblem((error ?? {}) as { type?: unknown; limit?: unknown }) ?? clientError((error ?? {}) as { status?: unknown }) ?? overloaded(error));
    if (problem && problem.status < 500) {
      sendProblem(res, problem);
      return;
    }
    (req.log ?? logger).error({ err: error }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(res, problem ?? problems.internal());
  };
}
