import { attributeValue, isIndexedAttribute, type Filter, type ListQuery, type Scalar, type SortKey } from '@entia/domain';
import { ObjectId, type Document, type Filter as MongoFilter, type Sort } from 'mongodb';
import { INTERNAL_FIELDS, storedScalar, type EntityDocument } from './codec';

/** A filter's scalar as its field is stored (a reference as an ObjectId, a datetime as a date…). */
const stored = (filter: Filter, value: Scalar) => storedScalar(filter.field, value);

const COMPARISONS = { eq: '$eq', gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte' } as const;

/**
 * One filter as a MongoDB condition with ANY-value semantics (SPEC §7): it holds when some value
 * of the property satisfies it (for `ne`: some value differs). Values only ever reach the query as operands of operators chosen
 * here, never as operators themselves: a `$where` in a query string is just a string.
 */
function condition(filter: Filter): Document {
  const path = `${filter.property}.${filter.field}`;
  switch (filter.op) {
    case 'exists':
      return { [path]: { $exists: filter.value } };
    case 'in':
      return { [path]: { $in: filter.values.map((value) => stored(filter, value)) } };
    case 'regex':
      // Both engines read patterns as UTF-8, so `u` has nothing left to say; the others map 1:1.
      return { [path]: { $regex: filter.pattern, $options: filter.flags.replace('u', '') } };
    case 'ne': {
      // Some value differs: it is greater or smaller. Both engines agree on this form for arrays of
      // values, unlike `$ne` (MongoDB: none equals) or `$elemMatch` (FerretDB 1.24 finds nothing).
      const value = stored(filter, filter.value);
      return { $or: [{ [path]: { $gt: value } }, { [path]: { $lt: value } }] };
    }
    default:
      return { [path]: { [COMPARISONS[filter.op]]: stored(filter, filter.value) } };
  }
}

/**
 * `eq` and `in` filters also name their entries of `__av`, whose one multikey index serves an
 * equality on any property; the exact condition stays beside it, so results never depend on it.
 */
function attributeCondition(filter: Filter): Document | undefined {
  const values = filter.op === 'eq' ? [filter.value] : filter.op === 'in' ? filter.values : undefined;
  if (!values || !values.every((value) => isIndexedAttribute(filter.field, value))) return undefined;
  return { __av: { $in: values.map((value) => attributeValue(filter.property, filter.field, value)) } };
}

/** The conditions of the query's filters and search terms, each to hold (an AND). */
function queryConditions(query: Pick<ListQuery, 'filters' | 'terms'>): Document[] {
  const conditions = query.filters.flatMap((filter) => [attributeCondition(filter), condition(filter)].filter((c): c is Document => c !== undefined));
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

/**
 * Sort keys read the scalar `__sort` fields (smallest value ascending, largest descending), and
 * always end with `_id` in the first key's direction, so equal keys page stably.
 */
export function compileSort(sort: SortKey[]): Sort {
  const compiled: Record<string, 1 | -1> = {};
  for (const key of sort) compiled[`__sort.${key.property}.${key.field}.${key.direction === 1 ? 'min' : 'max'}`] = key.direction;
  compiled._id = sort[0]?.direction ?? 1;
  return compiled;
}

/** `props` keeps `_id` and the named properties; otherwise everything but the internal fields. */
export function compileProjection(props: string[] | undefined): Document {
  if (props) return Object.fromEntries([['_id', 1], ...props.map((name) => [name, 1])]);
  return Object.fromEntries(INTERNAL_FIELDS.map((field) => [field, 0]));
}
