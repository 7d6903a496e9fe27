import { fieldDescriptorOf, fieldsOf, type PropertyDefinition, type RawQuery } from '@entia/domain';

/** A property as the list filters and sort of one type see it: its GraphQL name and definition. */
export interface Filterable {
  graphqlName: string;
  definition: Pick<PropertyDefinition, 'name' | 'type'>;
}

type Operators = Record<string, unknown>;

/** The REST key of one filter (`pages.number.gte`; `eq` is written without a suffix). */
const keyOf = (property: string, field: string, op: string) => (op === 'eq' ? `${property}.${field}` : `${property}.${field}.${op}`);

/** The REST value of one operator's argument: lists comma-joined, as in the query string. */
const textOf = (op: string, value: unknown) => (op === 'in' ? (value as unknown[]).map(String).join(',') : String(value));

export interface ListArgs {
  filter?: Record<string, Operators | Record<string, Operators> | null> | null;
  q?: string | null;
  sort?: readonly string[] | null;
  limit?: number | null;
  skip?: number | null;
}

/**
 * The REST list parameters a GraphQL list field's arguments stand for: the typed filter input
 * (property → operator → value, or for files property → field → operator → value) becomes
 * `<property>.<field>[.<op>]=value`, and `parseListQuery` then reads them exactly as it reads a
 * query string, so a filter means the same in both APIs (SPEC §7), bounds and refusals included.
 */
export function restParameters(typeId: string, properties: ReadonlyMap<string, Filterable>, args: ListArgs): RawQuery {
  const raw: RawQuery = Object.create(null) as RawQuery;
  raw['_type.reference'] = typeId;
  for (const [graphqlName, given] of Object.entries(args.filter ?? {})) {
    if (given === null || given === undefined) continue;
    const { definition } = properties.get(graphqlName)!;
    const fields = fieldsOf(definition.type);
    const byField = fields.length === 1 ? { [fields[0]!]: given as Operators } : (given as Record<string, Operators>);
    for (const [field, operators] of Object.entries(byField)) {
      for (const [op, value] of Object.entries(operators ?? {})) {
        if (value === null || value === undefined) continue;
        raw[keyOf(definition.name, field, op)] = textOf(op, value);
      }
    }
  }
  if (args.q !== undefined && args.q !== null) raw.q = args.q;
  if (args.sort && args.sort.length > 0) raw.sort = args.sort.join(',');
  if (args.limit !== undefined && args.limit !== null) raw.limit = String(args.limit);
  if (args.skip !== undefined && args.skip !== null) raw.skip = String(args.skip);
  return raw;
}

/** The sort keys a property offers: `<name>_ASC`/`_DESC` (files: `<name>_<field>_ASC`…) → the REST sort key. */
export function sortKeysOf(property: Filterable): [string, string][] {
  const fields = fieldsOf(property.definition.type).filter((field) => fieldDescriptorOf(field).sortKey !== undefined);
  const single = fieldsOf(property.definition.type).length === 1;
  return fields.flatMap((field) => {
    const base = single ? property.graphqlName : `${property.graphqlName}_${field}`;
    const key = `${property.definition.name}.${field}`;
    return [
      [`${base}_ASC`, key],
      [`${base}_DESC`, `-${key}`],
    ] as [string, string][];
  });
}
