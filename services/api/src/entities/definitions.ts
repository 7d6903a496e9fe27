import { isSchemaType, typeOf, type Entity, type PropertyDefinition } from '@entia/domain';
import type { Schema } from '@entia/derive';
import type { Deps } from '../deps';
import type { Tenant } from '../tenancy';

/** The database's types and definitions (from the schema cache). */
export function schemaOf(deps: Deps, tenant: Tenant): Promise<Schema> {
  return deps.schemas.of(tenant.name, tenant.record);
}

/** The user property definitions of type `typeId`, by name (from the schema cache). */
export async function definitionsOf(deps: Deps, tenant: Tenant, typeId: string | undefined): Promise<ReadonlyMap<string, PropertyDefinition>> {
  return (await schemaOf(deps, tenant)).definitionsOf(typeId);
}

export function isDefinition(tenant: Tenant, entity: Entity): boolean {
  return typeOf(entity.properties) === tenant.record.meta.property;
}

/** Whether writing the entity changes the database's schema (its types or their definitions). */
export function isSchemaEntity(tenant: Tenant, entity: Entity): boolean {
  return isSchemaType(tenant.record.meta, typeOf(entity.properties));
}
