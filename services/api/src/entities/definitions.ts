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

export function isDefinition(tenant: Tenant, entity: Entity): boolean {
  return typeOf(entity.properties) === tenant.record.meta.property;
}
