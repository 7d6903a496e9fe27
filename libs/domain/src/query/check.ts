import { SYSTEM_DEFINITIONS } from '../definitions/system';
import { invalid, type FieldError } from '../errors';
import { descriptorOf } from '../values/registry';
import { fieldsOf, type ValueType } from '../values/types';
import { PRESENCE_FIELD, type FilterField, type ListQuery } from './ast';
import { filterKeyOf } from './operators';

/**
 * The fields a property of `type` is filtered and sorted by: its own, and those its values carry
 * (a reference's label, `string`: `_type.string=menu`, `sort=author.string`).
 */
function queryFieldsOf(type: ValueType): readonly FilterField[] {
  return [...fieldsOf(type), ...(descriptorOf(type).carries ?? []).map((field) => field.name as FilterField)];
}

/** `_created` holds both when (datetime) and by whom (a reference, with its label); `_changed` too, its author by id only (never labelled). */
const SYSTEM_FIELDS: ReadonlyMap<string, readonly FilterField[]> = new Map([
  ...[...SYSTEM_DEFINITIONS.values()].map((d) => [d.name, queryFieldsOf(d.type)] as const),
  ['_created', ['datetime', ...queryFieldsOf('reference')]],
  ['_changed', ['datetime', 'reference']],
  // Who points at an entity, through what (derived/computed.ts).
  ['_reference', [...queryFieldsOf('reference'), 'property_type', 'entity_type']],
]);

/**
 * Refuses filters and sorts whose type does not match the property (SPEC §7): `types` maps each
 * property name defined in the queried types to the data types it has there. A filter is never
 * turned into a silent non-match.
 */
export function checkQueryTypes(query: Pick<ListQuery, 'filters' | 'sort' | 'group'>, types: ReadonlyMap<string, ReadonlySet<ValueType>>): void {
  const errors: FieldError[] = [];
  const check = (parameter: string, property: string, field: FilterField | typeof PRESENCE_FIELD) => {
    // Whether a property has a value tells nothing of a type: asked of one no type defines, it
    // answers as for a property nobody has (Entu's client asks `add_from._id.exists` of types without it).
    if (field === PRESENCE_FIELD) return;
    const allowed = SYSTEM_FIELDS.get(property) ?? [...new Set([...(types.get(property) ?? [])].flatMap((type) => queryFieldsOf(type)))];
    if (allowed.length === 0) errors.push({ parameter, message: `no type in this query defines the property "${property}"` });
    else if (!allowed.includes(field)) errors.push({ parameter, message: `"${property}" is ${allowed.join('/')}, not ${field}` });
  };
  for (const filter of query.filters) {
    check(filterKeyOf(filter.property, filter.field, filter.op), filter.property, filter.field);
  }
  for (const key of query.sort) check('sort', key.property, key.field);
  for (const key of query.group ?? []) check('group', key.property, key.field);
  if (errors.length > 0) throw invalid('The query does not match the property definitions.', errors);
}
