import type { FieldError } from '../errors';
import { VALUE_FIELDS, fieldsOf, type ValueData, type ValueField, type ValueType } from './types';

export interface ValueLimits {
  maxStringLength: number;
  maxTextLength: number;
  maxFileSize: number;
}

export const DEFAULT_LIMITS: ValueLimits = { maxStringLength: 10_000, maxTextLength: 1_000_000, maxFileSize: 5 * 1024 ** 3 };

/** What the value rules need to know of a property definition. */
export interface ValueShape {
  name: string;
  type: ValueType;
  multilingual: boolean;
  /** `_sharing`: the only values allowed. */
  allowed?: readonly string[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
const MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
const OBJECT_ID = /^[0-9a-f]{24}$/;
// Any surrogate not part of a pair (String.prototype.isWellFormed is ES2024, newer than our lib target).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A lone surrogate cannot be encoded as UTF-8: stored, it would come back altered. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

export function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Not Date.UTC: it reads years 0–99 as 1900–1999, which would refuse every date before year 100.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** ISO 8601 with an explicit offset, a real calendar date and clock time; `undefined` otherwise. */
export function normaliseDatetime(text: string): string | undefined {
  const match = DATETIME.exec(text);
  if (!match || !isCalendarDate(match[1]!)) return undefined;
  if (Number(match[2]) > 23 || Number(match[3]) > 59 || Number(match[4] ?? 0) > 59) return undefined;
  const time = Date.parse(text);
  if (Number.isNaN(time)) return undefined;
  const utc = new Date(time).toISOString();
  // The offset can carry a moment past year 9999 or before year 0, which ISO strings write as ±YYYYYY.
  return /^\d{4}-/.test(utc) ? utc : undefined;
}

type Input = Partial<Record<ValueField | 'language', unknown>>;

/**
 * Checks one input's value against its property (SPEC §3) and returns the data to store, or the
 * errors, each with a JSON pointer under `at`. Exactly the value field(s) of the property's type
 * must be present: a wrong field, a second field or a missing one is refused, never coerced.
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

  const data: ValueData = shape.multilingual ? { language: input.language as string } : {};
  const fail = (field: string, message: string) => [{ pointer: `${at}/${field}`, message }];
  switch (shape.type) {
    case 'string':
    case 'text': {
      const value = input.string;
      const max = shape.type === 'string' ? limits.maxStringLength : limits.maxTextLength;
      if (typeof value !== 'string') return fail('string', 'must be a string');
      if (!isWellFormed(value)) return fail('string', 'must be well-formed Unicode (no lone surrogates)');
      if (value.length > max) return fail('string', `must be at most ${max} characters`);
      if (shape.allowed && !shape.allowed.includes(value)) return fail('string', `must be one of ${shape.allowed.join(', ')}`);
      return { ...data, string: value };
    }
    case 'number':
      if (typeof input.number !== 'number' || !Number.isFinite(input.number)) return fail('number', 'must be a finite number');
      return { ...data, number: input.number };
    case 'boolean':
      if (typeof input.boolean !== 'boolean') return fail('boolean', 'must be true or false');
      return { ...data, boolean: input.boolean };
    case 'date':
      if (typeof input.date !== 'string' || !isCalendarDate(input.date)) return fail('date', 'must be a real date as YYYY-MM-DD');
      return { ...data, date: input.date };
    case 'datetime': {
      const normalised = typeof input.datetime === 'string' ? normaliseDatetime(input.datetime) : undefined;
      if (!normalised) return fail('datetime', 'must be an ISO 8601 date and time with an offset, e.g. 2024-05-01T12:00:00Z');
      return { ...data, datetime: normalised };
    }
    case 'reference':
      if (typeof input.reference !== 'string' || !OBJECT_ID.test(input.reference)) return fail('reference', 'must be an entity id');
      return { ...data, reference: input.reference };
    case 'file': {
      const { filename, filesize, filetype } = input;
      if (typeof filename !== 'string' || filename.length === 0 || filename.length > 255 || !isWellFormed(filename)) {
        return fail('filename', 'must be a file name of 1 to 255 characters');
      }
      if (typeof filesize !== 'number' || !Number.isInteger(filesize) || filesize <= 0 || filesize > limits.maxFileSize) {
        return fail('filesize', `must be a whole number of bytes, 1 to ${limits.maxFileSize}`);
      }
      if (typeof filetype !== 'string' || !MIME.test(filetype)) return fail('filetype', 'must be a MIME type such as image/png');
      return { ...data, filename, filesize, filetype };
    }
  }
}
