import {
  attributeValue,
  conditionOf,
  isIndexedAttribute,
  selectedProperties,
  sortEnd,
  type CursorPosition,
  type FieldFilter,
  type Filter,
  type FilterField,
  type FilterOf,
  type ListQuery,
  type Operator,
  type Scalar,
  type SortKey,
} from '@entia/domain';
import { ObjectId, type Document, type Filter as MongoFilter, type Sort } from 'mongodb';
import { INTERNAL_FIELDS, storedScalar, type EntityDocument } from './codec';

/** A filter's scalar as its field is stored (a reference as an ObjectId, a datetime as a date…). */
const stored = (filter: { field: FilterField }, value: Scalar) => storedScalar(filter.field, value);

/** A comparison of some value with the operand, as the MongoDB operator that asks it. */
const comparison =
  (operator: '$eq' | '$gt' | '$gte' | '$lt' | '$lte') =>
  (path: string, filter: FieldFilter<'eq' | 'gt' | 'gte' | 'lt' | 'lte'>): Document => ({ [path]: { [operator]: stored(filter, filter.value) } });

/**
 * Each operator as a MongoDB condition on `path` (`<property>.<field>`) with ANY-value semantics
 * (SPEC §7): it holds when some value of the property satisfies it (for `ne`: some value differs).
 * Values only ever reach the query as operands of the operators written here, never as operators
 * themselves: a `$where` in a query string is just a string. Every form is one FerretDB reads as
 * MongoDB does.
 */
const CONDITIONS: { readonly [O in Operator]: (path: string, filter: FilterOf<O>) => Document } = {
  eq: comparison('$eq'),
  gt: comparison('$gt'),
  gte: comparison('$gte'),
  lt: comparison('$lt'),
  lte: comparison('$lte'),
  // Some value differs: it is greater or smaller. Both engines agree on this form for arrays of
  // values, unlike `$ne` (MongoDB: none equals) or `$elemMatch` (FerretDB 1.24 finds nothing).
  ne: (path, filter) => {
    const value = stored(filter, filter.value);
    return { $or: [{ [path]: { $gt: value } }, { [path]: { $lt: value } }] };
  },
  in: (path, filter) => ({ [path]: { $in: filter.values.map((value) => stored(filter, value)) } }),
  // `<property>._id`: every value has an id, so this asks whether the property has any value.
  exists: (path, filter) => ({ [path]: { $exists: filter.value } }),
  // Both engines read patterns as UTF-8, so `u` has nothing left to say; the others map 1:1.
  regex: (path, filter) => ({ [path]: { $regex: filter.pattern, $options: filter.flags.replace('u', '') } }),
};

/** One filter as a MongoDB condition (`CONDITIONS`). */
function condition(filter: Filter): Document {
  // The filter is the one its operator's entry takes (`FilterOf`): the table's type holds them together.
  return (CONDITIONS[filter.op] as (path: string, filter: Filter) => Document)(`${filter.property}.${filter.field}`, filter);
}

const noEntries = (): undefined => undefined;

/**
 * The operands each operator's filter names in `__av`, whose one multikey index serves an equality
 * on any property (`eq`, `in`); the others name none.
 */
const EQUALS: { readonly [O in Operator]: (filter: FilterOf<O>) => readonly Scalar[] | undefined } = {
  eq: (filter) => [filter.value],
  in: (filter) => filter.values,
  ne: noEntries,
  gt: noEntries,
  gte: noEntries,
  lt: noEntries,
  lte: noEntries,
  exists: noEntries,
  regex: noEntries,
};

/**
 * `eq` and `in` filters also name their entries of `__av`; the exact condition stays beside them,
 * so results never depend on the index.
 */
function attributeEntries(filter: Filter): string[] | undefined {
  const values = (EQUALS[filter.op] as (filter: Filter) => readonly Scalar[] | undefined)(filter);
  if (values === undefined) return undefined;
  const { property, field } = filter as FieldFilter;
  if (!values.every((value) => isIndexedAttribute(field, value))) return undefined;
  return values.map((value) => attributeValue(property, field, value));
}

/** The exact condition of each filter, after its `__av` entries when it has them. */
function withAttributes(filters: readonly Filter[], exact: Document): Document[] {
  const entries = filters.map(attributeEntries);
  if (entries.some((found) => found === undefined)) return [exact];
  return [{ __av: { $in: entries.flat() } }, exact];
}

/**
 * One filter's conditions, each to hold. A right list's filter reads its levels (`conditionOf`:
 * the list as shown, cumulative): for one that holds on any level, one `$in` of every level's
 * `__av` entries (one index range) beside the `$or` of their exact conditions.
 */
function filterConditions(filter: Filter): Document[] {
  const rewritten = conditionOf(filter);
  // Only `exists=false` is an `all`: no equality, no index entry to name.
  if ('all' in rewritten) return rewritten.all.map(condition);
  const [only, ...more] = rewritten.any;
  if (more.length === 0) return withAttributes([only!], condition(only!));
  return withAttributes(rewritten.any, { $or: rewritten.any.map(condition) });
}

/** The conditions of the query's filters and search terms, each to hold (an AND). */
function queryConditions(query: Pick<ListQuery, 'filters' | 'terms'>): Document[] {
  const conditions = query.filters.flatMap(filterConditions);
  if (query.terms.length > 0) conditions.push({ __q: { $all: query.terms } });
  return conditions;
}

/** The caller's visibility is always part of the filter: a list never reaches past it. */
export function compileFilter(query: Pick<ListQuery, 'filters' | 'terms'>, readTags: string[]): MongoFilter<EntityDocument> {
  return { $and: [{ __read: { $in: readTags } }, ...queryConditions(query)] } as MongoFilter<EntityDocument>;
}

/** Every entity that matches the query, whoever may read it (a sign-in finding a person by e-mail). */
export function compileAll(query: Pick<ListQuery, 'filters' | 'terms'>): MongoFilter<EntityDocument> {
  return { $and: queryConditions(query) } as MongoFilter<EntityDocument>;
}

/** Entity `id` if it matches the query, whoever may read it (a definition's reference_query). */
export function compileMatch(id: string, query: Pick<ListQuery, 'filters' | 'terms'>): MongoFilter<EntityDocument> {
  return { $and: [{ _id: new ObjectId(id) }, ...queryConditions(query)] } as MongoFilter<EntityDocument>;
}

/** The `__sort` field a sort key reads. */
const sortPath = (key: SortKey) => `__sort.${key.property}.${key.field}.${sortEnd(key)}`;

/** The direction of the `_id` tie-break: the first key's, ascending without keys. */
const tieDirection = (sort: readonly SortKey[]): 1 | -1 => sort[0]?.direction ?? 1;

/**
 * Sort keys read the scalar `__sort` fields (smallest value ascending, largest descending), and
 * always end with `_id` in the first key's direction, so equal keys page stably.
 */
export function compileSort(sort: readonly SortKey[]): Sort {
  const compiled: Record<string, 1 | -1> = {};
  for (const key of sort) compiled[sortPath(key)] = key.direction;
  compiled._id = tieDirection(sort);
  return compiled;
}

/**
 * The entities strictly after `after` in the order `compileSort(sort)` gives, as conditions to AND
 * with the query's: a keyset condition (no skip scan): for keys k1…kn and `_id`, (k1 after v1) OR
 * (k1 = v1 AND k2 after v2) … OR (all equal AND `_id` after the cursor's), each in its own
 * direction. An entity without a value has no `__sort` field, which both engines order first
 * ascending and last descending (as null), while a comparison with a value never matches it: "after
 * no value" and "after a value, descending" name the missing ones explicitly (`{$ne: null}`,
 * `{field: null}`); after no value, descending, nothing of that key follows.
 *
 * Before the `$or`, a bound on the first key alone that the keyset implies (`$gte` ascending; not
 * `$gt` descending, which keeps the missing ones; `null`): redundant for the result, it is one index
 * range, so an index that gives the sort (`created_desc`, `_id`) starts at the cursor rather than
 * walking from the first entity and filtering (bench/plan.ts reads it so).
 */
export function compileAfter(sort: readonly SortKey[], after: CursorPosition): Document[] {
  const equal = (path: string, value: Scalar | null): Document => ({ [path]: value === null ? null : { $eq: value } });
  const beyond = (path: string, direction: 1 | -1, value: Scalar | null): Document | undefined => {
    if (value === null) return direction === 1 ? { [path]: { $ne: null } } : undefined;
    return direction === 1 ? { [path]: { $gt: value } } : { $or: [{ [path]: { $lt: value } }, { [path]: null }] };
  };
  const branches: Document[] = [];
  const prefix: Document[] = [];
  sort.forEach((key, n) => {
    const path = sortPath(key);
    const value = after.values[n] ?? null;
    const next = beyond(path, key.direction, value);
    if (next) branches.push(prefix.length === 0 ? next : { $and: [...prefix, next] });
    prefix.push(equal(path, value));
  });
  const id = new ObjectId(after.id);
  const last = { _id: tieDirection(sort) === 1 ? { $gt: id } : { $lt: id } };
  branches.push(prefix.length === 0 ? last : { $and: [...prefix, last] });
  if (branches.length === 1) return [branches[0]!];
  const first = sort[0]!;
  const value = after.values[0] ?? null;
  const path = sortPath(first);
  const bound = first.direction === 1 ? (value === null ? undefined : { [path]: { $gte: value } }) : value === null ? { [path]: null } : { [path]: { $not: { $gt: value } } };
  return bound ? [bound, { $or: branches }] : [{ $or: branches }];
}

/** The filter of a page: the query's (`compileFilter`), and after its cursor when it has one. A count never takes the cursor. */
export function compilePage(query: Pick<ListQuery, 'filters' | 'terms' | 'sort' | 'after'>, readTags: string[]): MongoFilter<EntityDocument> {
  const filter = compileFilter(query, readTags);
  if (!query.after) return filter;
  return { $and: [...(filter.$and as Document[]), ...compileAfter(query.sort, query.after)] } as MongoFilter<EntityDocument>;
}

/**
 * `props` keeps `_id` and the named properties; otherwise everything but the internal fields. The
 * sort keys a page's cursor is made of (`sort`) are read either way; `fromDocument` never returns them.
 */
export function compileProjection(props: string[] | undefined, sort: readonly SortKey[] = []): Document {
  // Whole properties: a path (`ordinal.number`) is cut to its field when presented.
  if (props) return Object.fromEntries([['_id', 1], ...selectedProperties(props).map((name) => [name, 1]), ...sort.map((key) => [sortPath(key), 1])]);
  return Object.fromEntries(INTERNAL_FIELDS.filter((field) => sort.length === 0 || field !== '__sort').map((field) => [field, 0]));
}
