import { definitionMap, typeOf, type Entity, type PropertyDefinition } from '@entia/domain';
import type { Tenant } from '../tenancy';

/** The user property definitions of type `typeId`, by name: the property entities parented to it. */
export async function definitionsOf(tenant: Tenant, typeId: string | undefined): Promise<Map<string, PropertyDefinition>> {
  if (typeId === undefined) return new Map();
  return definitionMap(await tenant.entities.childrenOfType(typeId, tenant.record.meta.property));
}

export function isDefinition(tenant: Tenant, entity: Entity): boolean {
  return typeOf(entity.properties) === tenant.record.meta.property;
}
