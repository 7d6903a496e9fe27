/** A refusal of an admin use case, worded for the operator (the CLI prints its message as is). */
export class AdminError extends Error {
  override readonly name = 'AdminError';
  /** `usage`: the arguments were wrong (exit 2); `failed`: they were fine, the thing cannot be done (exit 1). */
  constructor(
    message: string,
    readonly kind: 'usage' | 'failed' = 'failed',
  ) {
    super(message);
  }
}
