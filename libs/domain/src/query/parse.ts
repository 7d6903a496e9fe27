import { isSecretProperty } from '../definitions/system';
import { DomainError, invalid, type FieldError } from '../errors';
import { ANY_PROPERTY_NAME_SOURCE } from '../names';
import { QUERY_FIELD_DESCRIPTORS, fieldDescriptorOf } from '../values/registry';
import { searchTerms } from '../search/tokens';
import { decodeCursor } from './cursor';
import { groupRefusals, parseGroup, parseGroupSort } from './group';
import { parseProps } from './props';
import { PRESENCE_FIELD, type Filter, type FilterField, type ListQuery, type SortKey } from './ast';
import { readFilter, type FilterTarget, type WrittenOperand } from './filter';
import { OPERATORS, filterKeyOf, type Operator } from './operators';

export { MAX_IN, MAX_REGEX, OPERATORS_OF } from './filter';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
export const MAX_SKIP = 10_000_000;
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

class Collector {
  readonly errors: FieldError[] = [];
  fail(parameter: string, message: string): undefined {
    this.errors.push({ parameter, message });
    return undefined;
  }
}

const isOperator = (op: string): op is Operator => (OPERATORS as readonly string[]).includes(op);

/** One `<property>.<field>[.<operator>]=<text>` parameter. */
function parseFilter(key: string, text: string, errors: Collector): Filter | undefined {
  const match = FILTER_KEY.exec(key);
  if (!match) {
    return errors.fail(key, 'unknown parameter: filters are <property>.<type>[.<operator>], e.g. name.string.regex, or <property>._id.exists');
  }
  const op = match[3] ?? 'eq';
  if (!isOperator(op)) return errors.fail(key, `unknown operator "${op}"`);
  return readFilter({ property: match[1]!, field: match[2] as FilterField | typeof PRESENCE_FIELD, op }, text, key, errors.errors);
}

/** `sort=`'s keys, split at commas. */
function parseSort(parts: readonly string[], errors: Collector): SortKey[] {
  const keys: SortKey[] = [];
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

function bounded(given: number, parameter: string, min: number, max: number, errors: Collector): number | undefined {
  if (!Number.isInteger(given) || given < min || given > max) return errors.fail(parameter, `must be a whole number from ${min} to ${max}`);
  return given;
}

function integer(text: string, parameter: string, min: number, max: number, errors: Collector): number | undefined {
  return bounded(/^\d{1,10}$/.test(text) ? Number(text) : NaN, parameter, min, max, errors);
}

/** `q`: its search terms, at most `MAX_TERMS`. */
function readTerms(query: ListQuery, given: string, errors: Collector): void {
  const terms = searchTerms(given);
  if (terms.length > MAX_TERMS) errors.fail('q', `at most ${MAX_TERMS} search terms`);
  else query.terms = terms;
}

/** The query, or every refusal collected while reading it at once (400, each naming its parameter). */
function finished(query: ListQuery, errors: Collector): ListQuery {
  if (errors.errors.length > 0) throw invalid('The query is invalid.', errors.errors);
  return query;
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
      case 'q':
        readTerms(query, given, errors);
        break;
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
  if (sort !== undefined) query.sort = query.group ? parseGroupSort(sort, query.group, errors.errors) : parseSort(sort.split(','), errors);
  if (query.group) errors.errors.push(...groupRefusals(query, after !== undefined));
  else if (after !== undefined) readCursor(query, after, errors);
  return finished(query, errors);
}

/** A list query's parts as a typed front has them (GraphQL's arguments), filters already named. */
export interface ListParts {
  filters: readonly { target: FilterTarget; operand: WrittenOperand }[];
  /** Keys as `sort=` writes them (`-pages.number`). */
  sort?: readonly string[];
  limit?: number;
  skip?: number;
  q?: string;
}

/**
 * The list query of typed parts, read by the rules `parseListQuery` reads a query string with (each
 * filter's refusals name its query-string key), so both fronts accept, bound and refuse alike.
 */
export function listQueryOf(parts: ListParts): ListQuery {
  const errors = new Collector();
  const query: ListQuery = { filters: [], sort: [], limit: DEFAULT_LIMIT, skip: 0, terms: [] };
  for (const { target, operand } of parts.filters) {
    const filter = readFilter(target, operand, filterKeyOf(target.property, target.field, target.op), errors.errors);
    if (filter) query.filters.push(filter);
  }
  if (parts.q !== undefined) readTerms(query, parts.q, errors);
  if (parts.limit !== undefined) query.limit = bounded(parts.limit, 'limit', 0, MAX_LIMIT, errors) ?? query.limit;
  if (parts.skip !== undefined) query.skip = bounded(parts.skip, 'skip', 0, MAX_SKIP, errors) ?? 0;
  if (query.filters.length > MAX_FILTERS) errors.fail('filters', `at most ${MAX_FILTERS} filters`);
  if (parts.sort !== undefined && parts.sort.length > 0) query.sort = parseSort(parts.sort, errors);
  return finished(query, errors);
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
