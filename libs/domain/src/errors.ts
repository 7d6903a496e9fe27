/** One offending input: a JSON pointer into the request body, or a query/path parameter. */
export interface FieldError {
  pointer?: string;
  parameter?: string;
  message: string;
}

export type DomainErrorKind = 'invalid' | 'forbidden' | 'not-found' | 'conflict';

/**
 * A refusal decided by the rules, not a failure: the API turns `invalid` into 400, `forbidden`
 * into 403, `not-found` into 404 and `conflict` into 409, with the field errors as they are.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
  }
}

export const invalid = (message: string, errors: FieldError[] = []) => new DomainError('invalid', message, errors);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const notFound = (message: string) => new DomainError('not-found', message);
