import { fieldDescriptorOf, fieldsOf, listQueryOf, type FilterField, type ListParts, type ListQuery, type Operator, type PropertyDefinition, type WrittenOperand } from '@entia/domain';

/** A property as the list filters and sort of one type see it: its GraphQL name and definition. */
export interface Filterable {
  graphqlName: string;
  definition: Pick<PropertyDefinition, 'name' | 'type'>;
}

type Operators = Record<string, unknown>;

/**
 * An operator's argument as the domain reads an operand: each scalar as its text (what the
 * query string would carry, so a number, a date or a boolean passes the same checks), a list as
 * its items.
 */
const writtenOf = (value: unknown): WrittenOperand => (Array.isArray(value) ? value.map(String) : String(value));

export interface ListArgs {
  filter?: Record<string, Operators | Record<string, Operators> | null> | null;
  q?: string | null;
  sort?: readonly string[] | null;
  limit?: number | null;
  skip?: number | null;
}

const given = <T>(value: T | null | undefined): T | undefined => (value === null ? undefined : value);

/**
 * The list query a GraphQL list field's arguments stand for: the typed filter input (property →
 * operator → value, or for files property → field → operator → value) names each filter, and
 * `listQueryOf` reads its operand by the rules `parseListQuery` reads a query string with, so a
 * filter means the same in both APIs (SPEC §7), bounds and refusals included. The sort values are
 * REST sort keys (`sortKeysOf`).
 */
export function listQueryOfArgs(typeId: string, properties: ReadonlyMap<string, Filterable>, args: ListArgs): ListQuery {
  const filters: ListParts['filters'][number][] = [{ target: { property: '_type', field: 'reference', op: 'eq' }, operand: typeId }];
  for (const [graphqlName, byProperty] of Object.entries(args.filter ?? {})) {
    if (byProperty === null || byProperty === undefined) continue;
    const { definition } = properties.get(graphqlName)!;
    const fields = fieldsOf(definition.type);
    const byField = fields.length === 1 ? { [fields[0]!]: byProperty as Operators } : (byProperty as Record<string, Operators>);
    for (const [field, operators] of Object.entries(byField)) {
      for (const [op, value] of Object.entries(operators ?? {})) {
        if (value === null || value === undefined) continue;
        // The input types offer only the field's operators (`FIELD_FILTERS`).
        filters.push({ target: { property: definition.name, field: field as FilterField, op: op as Operator }, operand: writtenOf(value) });
      }
    }
  }
  return listQueryOf({ filters, sort: given(args.sort), limit: given(args.limit), skip: given(args.skip), q: given(args.q) });
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
