import type { TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from './problem';

// Path and query values arrive as strings and are coerced to the schema's types; JSON bodies are
// taken as sent, so `"1"` never passes for a number.
const coercing = addFormats(new Ajv({ coerceTypes: 'array', useDefaults: true, allErrors: true, strict: false }));
const exact = addFormats(new Ajv({ coerceTypes: false, useDefaults: true, allErrors: true, strict: false }));

export type Location = 'params' | 'query' | 'body';

export interface Validator {
  (value: unknown): FieldError[];
}

export function compileValidator(schema: TSchema, location: Location): Validator {
  const validate: ValidateFunction = (location === 'body' ? exact : coercing).compile(schema);
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((error) => describe(error, location)));
}

function describe(error: ErrorObject, location: Location): FieldError {
  const path =
    error.keyword === 'required' ? `${error.instancePath}/${String(error.params.missingProperty)}` : error.instancePath;
  const message = error.keyword === 'additionalProperties'
    ? `unknown field ${JSON.stringify(error.params.additionalProperty)}`
    : (error.message ?? 'is invalid');
  if (location === 'body') return { pointer: path, message };
  return { parameter: path.split('/')[1] ?? location, message };
}
