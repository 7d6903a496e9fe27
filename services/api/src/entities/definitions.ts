import { definitionFrom, typeOf, type Entity, type PropertyDefinition } from '@entia/domain';
import type { Tenant } from '../tenancy';

/** The user property definitions of type `typeId`, by name: the property entities parented to it. */
export async function definitionsOf(tenant: Tenant, typeId: string | undefined): Promise<Map<string, PropertyDefinition>> {
  const definitions = new Map<string, PropertyDefinition>();
  if (typeId === undefined) return definitions;
  for (const entity of await tenant.entities.childrenOfType(typeId, tenant.record.meta.property)) {
    const definition = definitionFrom(entity.properties);
    if (definition) definitions.set(definition.name, definition);
  }
  return definitions;
}

/** The properties whose values `q` searches: those defined with `search: true`. */
export function searchableOf(definitions: ReadonlyMap<string, PropertyDefinition>): Set<string> {
  return new Set([...definitions.values()].filter((definition) => definition.search).map((definition) => definition.name));
}

export function isDefinition(tenant: Tenant, entity: Entity): boolean {
  return typeOf(entity.properties) === tenant.record.meta.property;
}
