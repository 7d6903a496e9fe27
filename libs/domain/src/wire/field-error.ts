import { Type, type Static } from '@sinclair/typebox';

/**
 * One offending input: a query/path `parameter` or a JSON `pointer` into the body (RFC 6901).
 * Apart from the problem answer (`problem.ts`) so that `errors.ts`, which the problem's bounds come
 * from, can name it without a circle.
 */
export const FieldErrorSchema = Type.Object({
  parameter: Type.Optional(Type.String()),
  pointer: Type.Optional(Type.String()),
  message: Type.String(),
});

export type FieldError = Static<typeof FieldErrorSchema>;
