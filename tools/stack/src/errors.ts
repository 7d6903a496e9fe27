/**
 * A failure the user can act on. `message` is one line saying what is missing and how to fix
 * it; `details` (e.g. the tail of a server log) is printed below it, never a stack trace.
 */
export class StackError extends Error {
  readonly details: string[];

  constructor(message: string, details: string[] = []) {
    super(message);
    this.name = 'StackError';
    this.details = details;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
