import { DomainError } from '@entia/domain';
import { HttpProblem } from './problem';

const STATUS = {
  invalid: [400, 'invalid-request', 'Bad Request'],
  forbidden: [403, 'forbidden', 'Forbidden'],
  'not-found': [404, 'not-found', 'Not Found'],
  conflict: [409, 'conflict', 'Conflict'],
} as const;

/** A refusal of the domain rules, as the HTTP problem it stands for. */
export function problemOf(error: DomainError): HttpProblem {
  const [status, slug, title] = STATUS[error.kind];
  return new HttpProblem(status, slug, title, error.message, error.errors.length > 0 ? error.errors : undefined);
}

export { DomainError };
