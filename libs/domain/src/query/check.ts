import { SYSTEM_DEFINITIONS } from '../definitions/system';
import { invalid, type FieldError } from '../errors';
import { fieldsOf, type ValueType } from '../values/types';
import type { FilterField, ListQuery } from './ast';

/** `_created` holds both when (datetime) and by whom (reference). */
const SYSTEM_FIELDS: ReadonlyMap<string, readonly FilterField[]> = new Map([
  ...[...SYSTEM_DEFINITIONS.values()].map((d) => [d.name, fieldsOf(d.type)] as const),
  ['_created', ['datetime', 'reference'] as const],
]);

/**
 * Refuses filters and sorts whose type does not match the property (SPEC §7): `types` maps each
 * property name defined in the queried types to the data types it has there. A filter is never
 * turned into a silent non-match.
 */
export function checkQueryTypes(query: Pick<ListQuery, 'filters' | 'sort'>, types: ReadonlyMap<string, ReadonlySet<ValueType>>): void {
  const errors: FieldError[] = [];
  const check = (parameter: string, property: string, field: FilterField) => {
    const allowed = SYSTEM_FIELDS.get(property) ?? [...(types.get(property) ?? [])].flatMap((type) => fieldsOf(type));
    if (allowed.length === 0) errors.push({ parameter, message: `no type in this query defines the property "${property}"` });
    else if (!allowed.includes(field)) errors.push({ parameter, message: `"${property}" is ${allowed.join('/')}, not ${field}` });
  };
  for (const filter of query.filters) {
    check(`${filter.property}.${filter.field}${filter.op === 'eq' ? '' : `.${filter.op}`}`, filter.property, filter.field);
  }
  for (const key of query.sort) check('sort', key.property, key.field);
  if (errors.length > 0) throw invalid('The query does not match the property definitions.', errors);
}
