import { isSecretProperty } from '../definitions/system';
import type { FieldError } from '../errors';
import { QUERY_FIELD_DESCRIPTORS, fieldDescriptorOf } from '../values/registry';
import { PRESENCE_FIELD, type Filter, type FilterField } from './ast';
import type { OperandOf, Operator, Scalar } from './operators';

export const MAX_IN = 1000;
export const MAX_REGEX = 512;

/** Which operators each field takes (SPEC §7), as its value type declares them. */
export const OPERATORS_OF = Object.fromEntries(QUERY_FIELD_DESCRIPTORS.map((field) => [field.name, field.filter.operators])) as Readonly<
  Record<FilterField, readonly Operator[]>
>;

// Constructs RE2 (FerretDB) and PCRE (MongoDB) disagree on, or that only backtracking engines run;
// and `\u` escapes, which both refuse while JavaScript (the change feed's matcher) reads them.
const UNSUPPORTED_REGEX = /\(\?[=!<]|\\[1-9]|\\k<|\\u/;

/**
 * An operand as a client wrote it: the text of one value (a query string's, or a GraphQL argument's
 * scalar as text), or the items of a list (GraphQL's `in`).
 */
export type WrittenOperand = string | readonly string[];

/** One refusal, added to `errors`; undefined, so a reader can return it. */
function fail(errors: FieldError[], parameter: string, message: string): undefined {
  errors.push({ parameter, message });
  return undefined;
}

/** One scalar of `field`, or an error naming the parameter; never a silent string match. */
function scalar(field: FilterField, text: string, parameter: string, errors: FieldError[]): Scalar | undefined {
  const { filter } = fieldDescriptorOf(field);
  return filter.parse(text) ?? fail(errors, parameter, filter.refused);
}

const single = (written: WrittenOperand): string => (typeof written === 'string' ? written : written.join(','));

/**
 * A list's items, split at commas as the query string writes them: given as a list too, an item
 * with a comma splits alike in both APIs (docs/decisions.md, GraphQL: "Lists mean what REST lists mean").
 */
const items = (written: WrittenOperand): readonly string[] => single(written).split(',');

type Reader<O extends Operator> = (field: FilterField, written: WrittenOperand, parameter: string, errors: FieldError[]) => OperandOf<O> | undefined;

const value = (field: FilterField, written: WrittenOperand, parameter: string, errors: FieldError[]): { value: Scalar } | undefined => {
  const read = scalar(field, single(written), parameter, errors);
  return read === undefined ? undefined : { value: read };
};

const exists = (written: WrittenOperand, parameter: string, errors: FieldError[]): { value: boolean } | undefined => {
  const text = single(written);
  return text === 'true' || text === 'false' ? { value: text === 'true' } : fail(errors, parameter, 'must be true or false');
};

/** How each operator's operand is read (bounds and refusals included), whichever front wrote it. */
const OPERANDS: { readonly [O in Operator]: Reader<O> } = {
  eq: value,
  ne: value,
  gt: value,
  gte: value,
  lt: value,
  lte: value,
  in: (field, written, parameter, errors) => {
    const given = items(written);
    if (given.length > MAX_IN) return fail(errors, parameter, `at most ${MAX_IN} values`);
    const values = given.map((item) => scalar(field, item, parameter, errors));
    if (values.some((read) => read === undefined)) return undefined;
    return { values: values as Scalar[] };
  },
  exists: (_field, written, parameter, errors) => exists(written, parameter, errors),
  regex: (_field, written, parameter, errors) => {
    const literal = /^\/(.*)\/([a-z]*)$/s.exec(single(written));
    if (!literal) return fail(errors, parameter, 'must be /pattern/flags');
    const [, pattern, flags] = literal as unknown as [string, string, string];
    if (pattern.length === 0 || pattern.length > MAX_REGEX) return fail(errors, parameter, `the pattern must have 1 to ${MAX_REGEX} characters`);
    if (!/^(?!.*(.).*\1)[imsu]*$/.test(flags)) return fail(errors, parameter, 'flags are some of i, m, s, u, each once');
    if (UNSUPPORTED_REGEX.test(pattern)) return fail(errors, parameter, 'lookaround, backreferences and \\u escapes are not supported');
    try {
      new RegExp(pattern, flags);
    } catch {
      return fail(errors, parameter, 'not a valid regular expression');
    }
    return { pattern, flags };
  },
};

/** What one filter names: a property, a value field (or `_id`, its presence) and an operator. */
export interface FilterTarget {
  property: string;
  field: FilterField | typeof PRESENCE_FIELD;
  op: Operator;
}

/**
 * One filter from what a client wrote (SPEC §7), or undefined with its refusals added to `errors`,
 * each naming `parameter`: the REST list and GraphQL's typed filters both read theirs here, so a
 * filter means the same, bounds and refusals included, whichever front it came through.
 */
export function readFilter({ property, field, op }: FilterTarget, written: WrittenOperand, parameter: string, errors: FieldError[]): Filter | undefined {
  if (field === PRESENCE_FIELD) {
    // `<property>._id.exists=true|false`: whether the entity has any value of the property; nothing else of `_id`.
    if (op !== 'exists') return fail(errors, parameter, `${PRESENCE_FIELD} takes only exists: ${property}.${PRESENCE_FIELD}.exists=true or false`);
    const operand = exists(written, parameter, errors);
    return operand && { property, field, op, ...operand };
  }
  if (!OPERATORS_OF[field].includes(op)) return fail(errors, parameter, `${field} does not take the operator "${op}"`);
  // Any comparison with a secret's stored form (eq, in, ne, ranges, regex) is an oracle that
  // recovers it a character at a time; whether it exists tells nothing of it.
  if (isSecretProperty(property) && op !== 'exists') return fail(errors, parameter, `"${property}" is secret: only ${property}.${field}.exists may be filtered on`);
  const operand = OPERANDS[op](field, written, parameter, errors);
  // The operand read is the one `op`'s reader gives (the table's type holds them together).
  return operand && ({ property, field, op, ...operand } as Filter);
}
