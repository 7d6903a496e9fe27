/** RFC 9457 problem details as Entia sends them; `type` is a stable URN to switch on. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  /** For invalid input: the offending query/path `parameter`s or body `pointer`s (RFC 6901). */
  errors?: { parameter?: string; pointer?: string; message: string }[];
  /** How many more offending inputs there were than `errors` shows. */
  errorsOmitted?: number;
}

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
