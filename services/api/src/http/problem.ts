import { boundedErrors, clipText, type FieldError, type ProblemSchema } from '@entia/domain';
import type { Static } from '@sinclair/typebox';
import type { Response } from 'express';

/** RFC 9457 problem details as the domain's wire schema describes them, plus any extension members. */
export type ProblemBody = Static<typeof ProblemSchema> & { [extension: string]: unknown };

/** Longest `detail` an answer shows, in characters. */
const MAX_DETAIL = 1000;

/** An error that knows the HTTP answer it stands for. Thrown anywhere, answered by the error handler. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly slug: string,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail ?? title);
  }

  /**
   * The body, bounded whatever the input was: at most `MAX_FIELD_ERRORS` field errors with
   * `errorsOmitted` counting the rest, and no text that echoes input at length.
   */
  toBody(): ProblemBody {
    const errors = this.errors === undefined ? undefined : boundedErrors(this.errors);
    return {
      type: `urn:entia:problem:${this.slug}`,
      title: this.title,
      status: this.status,
      ...(this.detail === undefined ? {} : { detail: clipText(this.detail, MAX_DETAIL) }),
      ...(errors === undefined ? {} : { errors: errors.shown }),
      ...(errors && errors.omitted > 0 ? { errorsOmitted: errors.omitted } : {}),
      ...this.extensions,
    };
  }
}

export const problems = {
  invalidRequest: (detail: string, errors?: FieldError[]) => new HttpProblem(400, 'invalid-request', 'Bad Request', detail, errors),
  notFound: (detail = 'No such resource.') => new HttpProblem(404, 'not-found', 'Not Found', detail),
  methodNotAllowed: (allow: string[]) =>
    new HttpProblem(405, 'method-not-allowed', 'Method Not Allowed', `Allowed: ${allow.join(', ')}.`, undefined, {
      Allow: allow.join(', '),
    }),
  payloadTooLarge: (limit: number) =>
    new HttpProblem(413, 'payload-too-large', 'Payload Too Large', `The request body exceeds ${limit} bytes.`),
  unsupportedMediaType: () =>
    new HttpProblem(415, 'unsupported-media-type', 'Unsupported Media Type', 'Request bodies must be application/json.'),
  tooManyRequests: (retryAfterSeconds: number) =>
    new HttpProblem(429, 'rate-limited', 'Too Many Requests', `Retry after ${retryAfterSeconds} s.`, undefined, {
      'Retry-After': String(retryAfterSeconds),
    }),
  internal: () => new HttpProblem(500, 'internal', 'Internal Server Error', 'The server failed; the request id is in X-Request-Id.'),
  unavailable: (detail: string, extensions: Record<string, unknown> = {}) =>
    new HttpProblem(503, 'unavailable', 'Service Unavailable', detail, undefined, { 'Retry-After': '5' }, extensions),
};

export function sendProblem(res: Response, problem: HttpProblem): void {
  res.status(problem.status).set(problem.headers).type('application/problem+json').send(JSON.stringify(problem.toBody()));
}
