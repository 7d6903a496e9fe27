import { describeSchema, type DatabaseSchema } from '@entia/domain';
import { schemaOf } from './definitions';
import type { Tenant } from './tenant';

/**
 * GET /{db}/schema: the database's types and property definitions the caller may read,
 * in one answer. Served from the schema cache (one Redis GET for its token while nothing changed),
 * never a scan of its own; the domain decides what the caller sees and in which order.
 */
export async function describeDatabaseSchema(deps: Parameters<typeof schemaOf>[0], tenant: Tenant): Promise<DatabaseSchema> {
  const schema = await schemaOf(deps, tenant);
  return describeSchema([...schema.types.values()], schema.definitionEntitiesOf, tenant.caller);
}
