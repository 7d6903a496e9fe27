import type { EntityQuery, PropertyDescription, TypeDescription } from '../types';
import type { WhereOperator } from './shape';
import { definitionOf, InputError, UnknownPropertyError } from './values';

/**
 * The wire field a property filters and sorts on, as the schema describes it: its value's one field
 * (a text's or a url's `string`), or a record's first (a file's `filename`) when sorting.
 */
function fieldOf(property: PropertyDescription): string {
  return property.fields[0]!.name;
}

/** A value holding several fields (a file): filtered per field. */
const isRecord = (property: PropertyDescription | undefined) => property !== undefined && property.fields.length > 1;

/** Every operator once (a `Record`: one missing from `WhereOperator`'s list fails the build). */
const OPERATORS: Readonly<Record<WhereOperator, true>> = { eq: true, ne: true, gt: true, gte: true, lt: true, lte: true, in: true, exists: true, regex: true };

/** A filter value as the query string writes it. */
function text(key: string, value: unknown, op?: string): string {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof RegExp) {
    // Only `regex` reads a pattern: anywhere else `/…/` would be matched as that very text.
    if (op !== 'regex') throw new InputError(`"${key}": a RegExp goes in {regex: …}`);
    return `/${value.source}/${value.flags}`;
  }
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new InputError(`"${key}" takes a string, number, boolean or Date, not ${value === null ? 'null' : typeof value}`);
}

function inList(key: string, items: unknown): string {
  if (!Array.isArray(items)) throw new InputError(`"${key}.in" takes an array`);
  // `in=` is read as one empty item: it would match empty strings rather than nothing.
  if (items.length === 0) throw new InputError(`"${key}.in" needs at least one item`);
  return items
    .map((item) => {
      const written = text(key, item);
      // The wire joins `in` items with commas: one inside an item would split it.
      if (written.includes(',')) throw new InputError(`"${key}.in": an item cannot contain a comma`);
      return written;
    })
    .join(',');
}

/** `{gte: 1, lt: 5}` or a bare value into the wire's `<key>.<op>` parameters. */
function conditions(key: string, condition: unknown, query: EntityQuery): void {
  const isOps = condition !== null && typeof condition === 'object' && !(condition instanceof Date) && !(condition instanceof RegExp) && !Array.isArray(condition);
  if (!isOps) {
    query[key] = text(key, condition);
    return;
  }
  for (const [op, value] of Object.entries(condition as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(OPERATORS, op)) throw new InputError(`"${key}": unknown operator "${op}"`);
    query[op === 'eq' ? key : `${key}.${op}`] = op === 'in' ? inList(key, value) : text(`${key}.${op}`, value, op);
  }
}

/** The wire key of a property's filter or sort. */
function keyOf(type: TypeDescription, name: string): { key: string; property: PropertyDescription | undefined } {
  if (name === '_created' || name === '_changed') return { key: `${name}.datetime`, property: undefined };
  if (name === '_parent') return { key: '_parent.reference', property: undefined };
  const property = definitionOf(type, name);
  if (!property) throw new UnknownPropertyError(name, type.name);
  return { key: `${name}.${fieldOf(property)}`, property };
}

/** The name-based parameters of a list. */
export interface ListInput {
  where?: Record<string, unknown> | undefined;
  q?: string | undefined;
  sort?: string | string[] | undefined;
  limit?: number | undefined;
  skip?: number | undefined;
  after?: string | undefined;
  select?: readonly string[] | undefined;
}

/**
 * A list of `type` in the wire's query syntax: `_type` first, each `where` condition as
 * `<property>.<field>[.<op>]`, file conditions on `filename`/`filesize`/`filetype`, `sort` by name
 * (`-` descending), `select` as `props`. Unknown names throw before anything is sent.
 */
export function toListQuery(type: TypeDescription, input: ListInput): EntityQuery {
  const query: EntityQuery = { '_type.reference': type._id };
  for (const [name, condition] of Object.entries(input.where ?? {})) {
    if (condition === undefined) continue;
    const { key, property } = keyOf(type, name);
    if (!isRecord(property)) {
      conditions(key, condition, query);
      continue;
    }
    const fields = property!.fields.map((field) => field.name);
    const named = fields.join(', ').replace(/, (?=[^,]*$)/, ' or ');
    if (condition === null || typeof condition !== 'object') throw new InputError(`"${name}" is a ${property!.type} property: filter on ${named}`);
    for (const [field, inner] of Object.entries(condition as Record<string, unknown>)) {
      // Own field names only: `constructor` or `toString` are no fields of a value.
      if (!fields.includes(field)) throw new InputError(`"${name}": a ${property!.type} filters on ${named}, not "${field}"`);
      if (inner !== undefined) conditions(`${name}.${field}`, inner, query);
    }
  }
  const sort = input.sort === undefined ? [] : Array.isArray(input.sort) ? input.sort : [input.sort];
  if (sort.length > 0) {
    query.sort = sort.map((item) => {
      const descending = item.startsWith('-');
      const name = descending ? item.slice(1) : item;
      return `${descending ? '-' : ''}${keyOf(type, name).key}`;
    });
  }
  if (input.select) {
    for (const name of input.select) if (!name.startsWith('_')) keyOf(type, name);
    // The system fields an object carries are always asked for.
    query.props = [...new Set([...input.select, '_type', '_created', '_changed', '_sharing'])];
  }
  if (input.q !== undefined) query.q = input.q;
  if (input.limit !== undefined) query.limit = input.limit;
  if (input.skip !== undefined) query.skip = input.skip;
  if (input.after !== undefined) query.after = input.after;
  return query;
}
