import { MAX_GROUPS, groupedProperties, type FoundGroup, type GroupKey, type GroupedValue } from '@entia/domain';
import type { Document, Filter as MongoFilter } from 'mongodb';
import { decodeFields, type EntityDocument } from './codec';

/**
 * The aggregation of a grouped list (`group=`, libs/domain/src/query/group.ts): the list's filter
 * (visibility included), then each grouped property cut to the fields grouped by (and a
 * reference's label), then one group per distinct combination of those value lists, counted.
 *
 * Written for FerretDB 1.24 as much as for MongoDB (docs/decisions.md, "Grouped counts"): its
 * `$group` knows `$sum` and `$count` only (no `$first`, `$min`, `$push`), and its `$project` and
 * `$addFields` take no expressions (`{k: '$a.b'}` gives the string "$a.b"). An inclusion
 * `$project` of `<property>.<field>` paths keeps each value as a subdocument of those fields, in
 * order, on both engines, so the group's key carries the values' fields side by side (a label
 * beside its reference), which the bare path `$<property>.<field>` (an array of the field alone)
 * would not. `$limit` stops at one group more than a grouped list computes: that one says "too many".
 * FerretDB 1.24 compares each match with every group found so far: cheap for a few groups (about
 * the cost of a count), quadratic for thousands over as many matches (then the time limit, 503).
 */
export function compileGroup(group: readonly GroupKey[], filter: MongoFilter<EntityDocument>, maxGroups = MAX_GROUPS): Document[] {
  const properties = groupedProperties(group);
  const fields = properties.flatMap(({ property, fields }) => fields.map((field) => [`${property}.${field}`, 1] as const));
  const key = Object.fromEntries(properties.map(({ property }, n) => [`k${n}`, `$${property}`]));
  return [{ $match: filter }, { $project: { _id: 0, ...Object.fromEntries(fields) } }, { $group: { _id: key, _count: { $sum: 1 } } }, { $limit: maxGroups + 1 }];
}

/**
 * One result of `compileGroup` in the domain's terms. A property an entity lacks is missing from
 * the key (`{}` on MongoDB and FerretDB alike, or `null` on FerretDB when every key is missing);
 * either is "no values", as is an empty list.
 */
export function foundGroupOf(document: Document, properties: number): FoundGroup {
  const key = (document._id ?? {}) as Record<string, unknown>;
  const values = Array.from({ length: properties }, (_, n): GroupedValue[] => {
    const list = key[`k${n}`];
    if (!Array.isArray(list)) return [];
    return list.filter((value): value is Document => typeof value === 'object' && value !== null).map((value) => decodeFields(value) as GroupedValue);
  });
  return { values, count: Number(document._count) };
}
