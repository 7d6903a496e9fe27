import { Type } from '@sinclair/typebox';
import { MAX_FIELD_ERRORS } from '../errors';
import { FieldErrorSchema } from './field-error';

export { FieldErrorSchema } from './field-error';

/** RFC 9457 problem details; `type` is a stable URN clients may switch on. */
export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'A stable URN to switch on: `urn:entia:problem:<kind>`.' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(FieldErrorSchema, {
        maxItems: MAX_FIELD_ERRORS,
        description: `For invalid input: the first ${MAX_FIELD_ERRORS} offending query/path \`parameter\`s or body \`pointer\`s (RFC 6901).`,
      }),
    ),
    errorsOmitted: Type.Optional(Type.Integer({ minimum: 1, description: 'How many more offending inputs there were than `errors` shows.' })),
  },
  { description: 'RFC 9457 problem details: every error answer, as `application/problem+json`.' },
);
