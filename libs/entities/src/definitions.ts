import { isSchemaType, typeOf, type Entity } from '@entia/domain';
import type { Schema, SchemaCache } from './schema';
import type { Tenant } from './tenant';

/** The database's types and definitions (from the schema cache). */
export function schemaOf(deps: { schemas: Pick<SchemaCache, 'of'> }, tenant: Tenant): Promise<Schema> {
  return deps.schemas.of(tenant.name, tenant.record);
}

export function isDefinition(tenant: Tenant, entity: Entity): boolean {
  return typeOf(entity.properties) === tenant.record.meta.property;
}

export function isType(tenant: Tenant, entity: Entity): boolean {
  return typeOf(entity.properties) === tenant.record.meta.entity;
}

/** Whether writing the entity changes the database's schema (its types or their definitions). */
export function isSchemaEntity(tenant: Tenant, entity: Entity): boolean {
  return isSchemaType(tenant.record.meta, typeOf(entity.properties));
}
