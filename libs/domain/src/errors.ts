import type { FieldError } from './wire/field-error';

/** One offending input: a JSON pointer into the request body, or a query/path parameter. */
export type { FieldError } from './wire/field-error';

/** An error answer shows at most this many field errors; the others are only counted. */
export const MAX_FIELD_ERRORS = 20;
/** Longest parameter name, pointer or message an error answer shows, in characters. */
export const MAX_ERROR_TEXT = 300;

/** `text` cut to `max` characters (the last one an ellipsis), so no input is echoed at length. */
export function clipText(text: string, max = MAX_ERROR_TEXT): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The field errors an answer shows: the first `MAX_FIELD_ERRORS`, each text clipped, and how many
 * were left out. A body of 100 000 `{}` items would otherwise be answered with 100 000 errors, a
 * response 24 times the size of the request.
 */
export function boundedErrors(errors: readonly FieldError[]): { shown: FieldError[]; omitted: number } {
  const shown = errors.slice(0, MAX_FIELD_ERRORS).map((error) => ({
    ...(error.parameter === undefined ? {} : { parameter: clipText(error.parameter) }),
    ...(error.pointer === undefined ? {} : { pointer: clipText(error.pointer) }),
    message: clipText(error.message),
  }));
  return { shown, omitted: errors.length - shown.length };
}

export type DomainErrorKind = 'invalid' | 'unauthenticated' | 'forbidden' | 'not-found' | 'conflict' | 'unprocessable';

/**
 * A refusal decided by the rules, not a failure: the API turns `invalid` into 400,
 * `unauthenticated` into 401, `forbidden` into 403, `not-found` into 404, `conflict` into 409 and
 * `unprocessable` (well-formed, but the stored data cannot serve it: a file that is no image) into 422,
 * with the field errors as they are. A `conflict` may say when trying again makes sense.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly errors: FieldError[] = [],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export const invalid = (message: string, errors: FieldError[] = []) => new DomainError('invalid', message, errors);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const notFound = (message: string) => new DomainError('not-found', message);
export const unauthenticated = (message: string) => new DomainError('unauthenticated', message);
export const conflict = (message: string, retryAfterSeconds?: number) => new DomainError('conflict', message, [], retryAfterSeconds);
