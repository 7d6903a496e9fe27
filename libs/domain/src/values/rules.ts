import type { FieldError } from '../errors';
import { isRefusal, type ValueLimits } from './descriptor';
import { VALUE_FIELDS, descriptorOf, fieldsOf, type ValueType } from './registry';
import type { ValueData, ValueField } from './types';

export type { ValueLimits } from './descriptor';

export const DEFAULT_LIMITS: ValueLimits = { maxStringLength: 10_000, maxTextLength: 1_000_000, maxFileSize: 5 * 1024 ** 3 };

/** What the value rules need to know of a property definition. */
export interface ValueShape {
  name: string;
  type: ValueType;
  multilingual: boolean;
  /** `_sharing`: the only values allowed. */
  allowed?: readonly string[];
}

const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

type Input = Partial<Record<ValueField | 'language', unknown>>;

/**
 * Checks one input's value against its property (SPEC §3) and returns the data to store, or the
 * errors, each with a JSON pointer under `at`. Exactly the value field(s) of the property's type
 * must be present: a wrong field, a second field or a missing one is refused, never coerced; what
 * each field must hold is its type's rule (`descriptorOf(type).check`).
 */
export function checkValue(input: Input, shape: ValueShape, limits: ValueLimits, at: string): ValueData | FieldError[] {
  const errors: FieldError[] = [];
  const expected = fieldsOf(shape.type);
  const given = VALUE_FIELDS.filter((field) => input[field] !== undefined);
  for (const field of given.filter((f) => !expected.includes(f))) {
    errors.push({ pointer: `${at}/${field}`, message: `property "${shape.name}" is of type ${shape.type}: use ${expected.join(', ')}` });
  }
  for (const field of expected.filter((f) => input[f] === undefined)) {
    errors.push({ pointer: `${at}/${field}`, message: `a ${shape.type} value of "${shape.name}" needs ${field}` });
  }

  if (shape.multilingual && input.language === undefined) {
    errors.push({ pointer: `${at}/language`, message: `"${shape.name}" is multilingual: every value needs a language` });
  } else if (!shape.multilingual && input.language !== undefined) {
    errors.push({ pointer: `${at}/language`, message: `"${shape.name}" is not multilingual: language is not allowed` });
  } else if (input.language !== undefined && (typeof input.language !== 'string' || !LANGUAGE.test(input.language))) {
    errors.push({ pointer: `${at}/language`, message: 'must be a language code such as "en" or "pt-BR"' });
  }
  if (errors.length > 0) return errors;

  const checked = descriptorOf(shape.type).check(input, { limits, ...(shape.allowed ? { allowed: shape.allowed } : {}) });
  if (isRefusal(checked)) return [{ pointer: `${at}/${checked.refused}`, message: checked.message }];
  return { ...(shape.multilingual ? { language: input.language as string } : {}), ...checked };
}
