import type { TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from '@entia/domain';

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
  const check: Validator = (value) => (validate(value) ? [] : (validate.errors ?? []).map((error) => describe(error, location)));
  return location === 'body' ? check : withDecimalIntegers(schema, check);
}

/**
 * Ajv's coercion reads a query string's `1e3`, ` 5` or `0x10` as numbers; an integer parameter
 * is written in decimal digits, anything else is refused (naming the parameter) as the schema's
 * `type: integer` tells clients.
 */
function withDecimalIntegers(schema: TSchema, check: Validator): Validator {
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const integers = Object.keys(properties).filter((name) => properties[name]!.type === 'integer');
  if (integers.length === 0) return check;
  return (value) => {
    const given = value as Record<string, unknown>;
    const malformed = integers.filter((name) => typeof given[name] === 'string' && !/^-?\d+$/.test(given[name] as string));
    const errors = check(value).filter((error) => !malformed.includes(error.parameter!));
    return [...malformed.map((parameter) => ({ parameter, message: 'must be an integer written in decimal digits' })), ...errors];
  };
}

function describe(error: ErrorObject, location: Location): FieldError {
  // A missing or unknown field is named by its own path, not by its parent object's.
  const field =
    error.keyword === 'required' ? error.params.missingProperty : error.keyword === 'additionalProperties' ? error.params.additionalProperty : undefined;
  const path = field === undefined ? error.instancePath : `${error.instancePath}/${escapePointer(String(field))}`;
  const message = error.keyword === 'additionalProperties'
    ? `unknown field ${JSON.stringify(error.params.additionalProperty)}`
    : (error.message ?? 'is invalid');
  if (location === 'body') return { pointer: path, message };
  return { parameter: unescapePointer(path.split('/')[1] ?? location), message };
}

/** RFC 6901: `~` and `/` inside a name are written `~0` and `~1`. */
const escapePointer = (name: string) => name.replace(/~/g, '~0').replace(/\//g, '~1');
const unescapePointer = (name: string) => name.replace(/~1/g, '/').replace(/~0/g, '~');
