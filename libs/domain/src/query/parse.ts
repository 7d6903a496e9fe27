import { isSecretProperty } from '../definitions/system';
import { DomainError, invalid, type FieldError } from '../errors';
import { ANY_PROPERTY_NAME_SOURCE } from '../names';
import { QUERY_FIELD_DESCRIPTORS, fieldDescriptorOf } from '../values/registry';
import { searchTerms } from '../search/tokens';
import { decodeCursor } from './cursor';
import { groupRefusals, parseGroup, parseGroupSort } from './group';
import { parseProps } from './props';
import { OPERATORS, PRESENCE_FIELD, type Filter, type FilterField, type ListQuery, type Operator, type Scalar, type SortKey } from './ast';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
export const MAX_SKIP = 10_000_000;
export const MAX_IN = 1000;
export const MAX_REGEX = 512;
export const MAX_TERMS = 16;
export const MAX_FILTERS = 50;

/** The parameters that shape a page of a list (order, paging, counting, text search): a change feed and a reference_query take none. */
export const LIST_ONLY_PARAMETERS = ['sort', 'limit', 'skip', 'q', 'count', 'after', 'group'] as const;

/**
 * Raw query parameters as the HTTP layer hands them over: repeated keys arrive as arrays; `limit`
 * and `skip` may arrive as numbers already (the router validates them as integers).
 */
export type RawQuery = Record<string, string | number | string[] | undefined>;

const PROPERTY = ANY_PROPERTY_NAME_SOURCE;
/** The value fields a filter key may name (`<property>.<field>`): every field of every value type. */
export const FILTER_FIELDS: readonly FilterField[] = QUERY_FIELD_DESCRIPTORS.map((field) => field.name);
const FILTER_KEY = new RegExp(`^(${PROPERTY})\\.(${[...FILTER_FIELDS, PRESENCE_FIELD].join('|')})(?:\\.([a-z]+))?$`);
/** What a filter key looks like, for the API description: `<property>.<field>[.<operator>]`, or `<property>._id.exists`. */
export const FILTER_KEY_PATTERN = `^${PROPERTY}\\.((${FILTER_FIELDS.join('|')})(\\.(${OPERATORS.join('|')}))?|${PRESENCE_FIELD}\\.exists)$`;
const SORT_KEY = new RegExp(`^(-?)(${PROPERTY})\\.(${FILTER_FIELDS.join('|')})$`);

/** Which operators each field takes (SPEC §7), as its value type declares them. */
export const OPERATORS_OF = Object.fromEntries(QUERY_FIELD_DESCRIPTORS.map((field) => [field.name, field.filter.operators])) as Readonly<
  Record<FilterField, readonly Operator[]>
>;

// Constructs RE2 (FerretDB) and PCRE (MongoDB) disagree on, or that only backtracking engines run;
// and `\u` escapes, which both refuse while JavaScript (the change feed's matcher) reads them.
const UNSUPPORTED_REGEX = /\(\?[=!<]|\\[1-9]|\\k<|\\u/;

class Collector {
  readonly errors: FieldError[] = [];
  fail(parameter: string, message: string): undefined {
    this.errors.push({ parameter, message });
    return undefined;
  }
}

/** One scalar of `field`, or an error naming the parameter; never a silent string match. */
function scalar(field: FilterField, text: string, parameter: string, errors: Collector): Scalar | undefined {
  const { filter } = fieldDescriptorOf(field);
  return filter.parse(text) ?? errors.fail(parameter, filter.refused);
}

const exists = (text: string, key: string, errors: Collector): boolean | undefined =>
  text === 'true' || text === 'false' ? text === 'true' : errors.fail(key, 'must be true or false');

/** `<property>._id.exists=true|false`: whether the entity has any value of the property; nothing else of `_id`. */
function presence(key: string, property: string, op: Operator, text: string, errors: Collector): Filter | undefined {
  if (op !== 'exists') return errors.fail(key, `${PRESENCE_FIELD} takes only exists: ${property}.${PRESENCE_FIELD}.exists=true or false`);
  const value = exists(text, key, errors);
  return value === undefined ? undefined : { property, field: PRESENCE_FIELD, op, value };
}

function parseFilter(key: string, text: string, errors: Collector): Filter | undefined {
  const match = FILTER_KEY.exec(key);
  if (!match) {
    return errors.fail(key, 'unknown parameter: filters are <property>.<type>[.<operator>], e.g. name.string.regex, or <property>._id.exists');
  }
  const property = match[1]!;
  const op = (match[3] ?? 'eq') as Operator;
  if (!(OPERATORS as readonly string[]).includes(op)) return errors.fail(key, `unknown operator "${op}"`);
  if (match[2] === PRESENCE_FIELD) return presence(key, property, op, text, errors);
  const field = match[2] as FilterField;
  if (!OPERATORS_OF[field].includes(op)) return errors.fail(key, `${field} does not take the operator "${op}"`);
  // Any comparison with a secret's stored form (eq, in, ne, ranges, regex) is an oracle that
  // recovers it a character at a time; whether it exists tells nothing of it.
  if (isSecretProperty(property) && op !== 'exists') return errors.fail(key, `"${property}" is secret: only ${property}.${field}.exists may be filtered on`);

  switch (op) {
    case 'exists': {
      const value = exists(text, key, errors);
      return value === undefined ? undefined : { property, field, op, value };
    }
    case 'in': {
      const items = text.split(',');
      if (items.length > MAX_IN) return errors.fail(key, `at most ${MAX_IN} values`);
      const values = items.map((item) => scalar(field, item, key, errors));
      if (values.some((value) => value === undefined)) return undefined;
      return { property, field, op, values: values as Scalar[] };
    }
    case 'regex': {
      const literal = /^\/(.*)\/([a-z]*)$/s.exec(text);
      if (!literal) return errors.fail(key, 'must be /pattern/flags');
      const [, pattern, flags] = literal as unknown as [string, string, string];
      if (pattern.length === 0 || pattern.length > MAX_REGEX) return errors.fail(key, `the pattern must have 1 to ${MAX_REGEX} characters`);
      if (!/^(?!.*(.).*\1)[imsu]*$/.test(flags)) return errors.fail(key, 'flags are some of i, m, s, u, each once');
      if (UNSUPPORTED_REGEX.test(pattern)) return errors.fail(key, 'lookaround, backreferences and \\u escapes are not supported');
      try {
        new RegExp(pattern, flags);
      } catch {
        return errors.fail(key, 'not a valid regular expression');
      }
      return { property, field, op, pattern, flags };
    }
    default: {
      const value = scalar(field, text, key, errors);
      return value === undefined ? undefined : { property, field, op, value };
    }
  }
}

function parseSort(text: string, errors: Collector): SortKey[] {
  const keys: SortKey[] = [];
  const parts = text.split(',');
  if (parts.length > 8) return errors.fail('sort', 'at most 8 sort fields') ?? [];
  for (const part of parts) {
    const match = SORT_KEY.exec(part);
    if (!match) {
      errors.fail('sort', `"${part.slice(0, 100)}" is not <property>.<field> or -<property>.<field> (fields: ${FILTER_FIELDS.join(', ')})`);
      continue;
    }
    if (fieldDescriptorOf(match[3] as FilterField).sortKey === undefined) {
      errors.fail('sort', `cannot sort by ${match[3]}`);
      continue;
    }
    if (isSecretProperty(match[2]!)) {
      errors.fail('sort', `cannot sort by "${match[2]}": it is secret`);
      continue;
    }
    keys.push({ property: match[2]!, field: match[3] as FilterField, direction: match[1] === '-' ? -1 : 1 });
  }
  return keys;
}

function integer(text: string, parameter: string, min: number, max: number, errors: Collector): number | undefined {
  if (!/^\d{1,10}$/.test(text) || Number(text) < min || Number(text) > max) {
    return errors.fail(parameter, `must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

/** `after`: a cursor for the query's sort, and a start that `skip` does not also move. */
function readCursor(query: ListQuery, text: string, errors: Collector): void {
  if (query.skip > 0) {
    errors.fail('after', 'cannot be combined with skip: a cursor says where the page starts');
    return;
  }
  try {
    query.after = decodeCursor(text, query.sort);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    errors.errors.push(...error.errors);
  }
}

/**
 * Turns the query string of GET /api/{db}/entity into a typed query (SPEC §7). Every malformed key
 * or value is collected and reported at once as a 400 naming the parameter.
 */
export function parseListQuery(raw: RawQuery): ListQuery {
  const errors = new Collector();
  const query: ListQuery = { filters: [], sort: [], limit: DEFAULT_LIMIT, skip: 0, terms: [] };
  // Read once the sort is known: a cursor belongs to one sort.
  let after: string | undefined;
  // Read once `group` is known: a grouped list sorts its rows by its keys.
  let sort: string | undefined;
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      errors.fail(key, 'given more than once');
      continue;
    }
    const given = String(value);
    switch (key) {
      case 'limit':
        query.limit = integer(given, key, 0, MAX_LIMIT, errors) ?? query.limit;
        break;
      case 'skip':
        query.skip = integer(given, key, 0, MAX_SKIP, errors) ?? 0;
        break;
      case 'sort':
        sort = given;
        break;
      case 'q': {
        const terms = searchTerms(given);
        if (terms.length > MAX_TERMS) errors.fail(key, `at most ${MAX_TERMS} search terms`);
        else query.terms = terms;
        break;
      }
      case 'props':
        try {
          query.props = parseProps(given);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          errors.errors.push(...error.errors);
        }
        break;
      case 'count':
        // `exact` is the default, left out so that both spellings are one query (one cache entry).
        if (given === 'none') query.count = 'none';
        else if (given !== 'exact') errors.fail(key, 'must be exact or none');
        break;
      case 'group':
        query.group = parseGroup(given, errors.errors);
        break;
      case 'after':
        after = given;
        break;
      default: {
        const filter = parseFilter(key, given, errors);
        if (filter) query.filters.push(filter);
      }
    }
  }
  if (query.filters.length > MAX_FILTERS) errors.fail('filters', `at most ${MAX_FILTERS} filters`);
  if (sort !== undefined) query.sort = query.group ? parseGroupSort(sort, query.group, errors.errors) : parseSort(sort, errors);
  if (query.group) errors.errors.push(...groupRefusals(query, after !== undefined));
  else if (after !== undefined) readCursor(query, after, errors);
  if (errors.errors.length > 0) throw invalid('The query is invalid.', errors.errors);
  return query;
}

/**
 * A query string (`a.string=x&b.number.gt=1`) as raw parameters; repeated keys become arrays.
 * Without a prototype: on a plain object `__proto__=x` would vanish (assigning a string to it is
 * ignored) and `constructor=x` would find a function and count as given twice.
 */
export function rawQueryOf(text: string): RawQuery {
  const raw = Object.create(null) as Record<string, string | string[]>;
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = raw[key];
    raw[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return raw;
}

/**
 * A definition's `reference_query` (SPEC §5): filters only, in the list query syntax. Sorting,
 * paging, counting, `q` and `props` mean nothing for a single reference and are refused.
 */
export function parseReferenceQuery(text: string): ListQuery {
  const raw = rawQueryOf(text);
  const refused: readonly string[] = [...LIST_ONLY_PARAMETERS, 'props'];
  const extra = Object.keys(raw).filter((key) => refused.includes(key));
  if (extra.length > 0) throw invalid('reference_query takes filters only.', extra.map((parameter) => ({ parameter, message: 'not allowed in reference_query' })));
  return parseListQuery(raw);
}
