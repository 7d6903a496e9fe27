import type { ProblemSchema } from '@entia/domain';
import type { Static } from '@sinclair/typebox';

/** RFC 9457 problem details as Entia sends them. */
export type Problem = Static<typeof ProblemSchema>;

/** A non-2xx answer, after any retries; `problem` is the server's explanation when it gave one. */
export class EntiaError extends Error {
  override readonly name = 'EntiaError';

  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
    readonly requestId: string | undefined,
  ) {
    super(problem?.detail ?? problem?.title ?? `HTTP ${status}`);
  }
}
