import { first, type Entity } from '../entity';
import { conflict, type DomainError } from '../errors';
import type { Filter } from '../query/ast';

/**
 * Type names are unique in a database: clients address types by name (the SDK's
 * `db.type('book')`, Entu's client's `_type.string=book` menus), so a second `book` would leave
 * every one of them ambiguous. Checked under the database's schema lease, like a type's definition
 * names, so two writers at once cannot both pass.
 */
export function typeNamed(entityType: string, name: string): Filter[] {
  return [
    { property: '_type', field: 'reference', op: 'eq', value: entityType },
    { property: 'name', field: 'string', op: 'eq', value: name },
  ];
}

/** The refusal of a type whose name another type has (`sameNamed`: the types of that name, itself maybe among them). */
export function typeNameTaken(type: Entity, sameNamed: readonly Entity[]): DomainError | undefined {
  const name = first(type.properties, 'name')?.string;
  const other = sameNamed.find((candidate) => candidate._id !== type._id && first(candidate.properties, 'name')?.string === name);
  if (name === undefined || other === undefined) return undefined;
  return conflict(`Type "${name}" exists already (${other._id}): type names are unique in a database; use that type, or choose another name. Nothing was written.`);
}

/** A name several types of one database have (made before names were unique), with their ids. */
export interface SharedTypeName {
  name: string;
  types: string[];
}

/** The names several of `types` have, each with its types' ids, in name order: what `migrate --status` reports. */
export function sharedTypeNames(types: readonly Entity[]): SharedTypeName[] {
  const byName = new Map<string, string[]>();
  for (const type of types) {
    const name = first(type.properties, 'name')?.string;
    if (name !== undefined) byName.set(name, [...(byName.get(name) ?? []), type._id]);
  }
  return [...byName]
    .filter(([, ids]) => ids.length > 1)
    .map(([name, ids]) => ({ name, types: ids.sort() }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
