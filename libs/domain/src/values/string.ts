import { Type } from '@sinclair/typebox';
import { TEXT_OPERATORS, defineField, defineValueType, refuse, type CheckContext, type InputFields } from './descriptor';

// Any surrogate not part of a pair (String.prototype.isWellFormed is ES2024, newer than our lib target).
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A lone surrogate cannot be encoded as UTF-8: stored, it would come back altered. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** Strings sort case- and accent-insensitively: "émile" between "Emil" and "Emma". */
export function sortable(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Strings longer than this are left out of the attribute index: an equality on them scans. */
export const MAX_ATTRIBUTE_STRING = 256;

/** A filter value of a text field longer than any stored string: refused rather than scanned for. */
const MAX_FILTER_TEXT = 10_000;

/** How any text field (a string, a file's name or type) reads a filter value. */
export const TEXT_FILTER = {
  operators: TEXT_OPERATORS,
  parse: (text: string) => (text.length > MAX_FILTER_TEXT ? undefined : text),
  refused: 'value too long',
};

/** The `string` field: of string and text values, and the label a reference value carries. */
export const STRING_FIELD = defineField({
  name: 'string',
  scalar: 'string',
  wire: { input: Type.String({ maxLength: 1_000_000 }), output: Type.String() },
  storedAs: 'as-is',
  filter: TEXT_FILTER,
  // Cut before folding: the key of a long text need not be long to order it.
  sortKey: (value: string) => sortable(value.slice(0, 256)),
  indexed: (value: string) => value.length <= MAX_ATTRIBUTE_STRING,
  searchText: (value: string) => value,
});

/** The check of string and text values, which differ only in their length limit. */
export function checkString(input: InputFields, { allowed }: CheckContext, max: number) {
  const value = input.string;
  if (typeof value !== 'string') return refuse('string', 'must be a string');
  if (!isWellFormed(value)) return refuse('string', 'must be well-formed Unicode (no lone surrogates)');
  if (value.length > max) return refuse('string', `must be at most ${max} characters`);
  if (allowed && !allowed.includes(value)) return refuse('string', `must be one of ${allowed.join(', ')}`);
  return { string: value };
}

/** A short text (SPEC §3: at most 10 000 characters, configurable). */
export const STRING_TYPE = defineValueType({
  type: 'string',
  fields: [STRING_FIELD],
  check: (input, context) => checkString(input, context, context.limits.maxStringLength),
  formula: { read: (value) => value.string, stores: 'string' },
});
