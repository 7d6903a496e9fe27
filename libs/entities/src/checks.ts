import {
  checkPlacement,
  checkReferences,
  definitionParent,
  first,
  invalid,
  typeNameTaken,
  typeNamed,
  type Caller,
  type CompiledType,
  type Entity,
  type FieldError,
  type Properties,
  type WriteResult,
} from '@entia/domain';
import type { EntitiesDeps } from './deps';
import type { Tenant } from './tenant';
import { isDefinition, isType } from './definitions';
import { checkWebhookWrite } from './webhooks';

/** SPEC §5: a reference whose definition has a `reference_query` must point at a match of it. */
async function checkReferenceQueries(tenant: Tenant, result: WriteResult, type: CompiledType): Promise<void> {
  const errors: FieldError[] = [];
  for (const reference of result.references) {
    const query = type.referenceQueries.get(reference.property);
    if (query !== undefined && !(await tenant.entities.matches(reference.id, query))) {
      const text = type.definitions.get(reference.property)!.referenceQuery;
      errors.push({ pointer: reference.pointer, message: `${reference.id} does not match the reference_query of "${reference.property}": ${text}` });
    }
  }
  if (errors.length > 0) throw invalid('Some references do not match their reference_query; nothing was written.', errors);
}

/**
 * The properties of the entities with these ids that exist. Types come from `types` (the schema
 * cache's, as current as a read), those in `read` from the database, the rest from the target
 * cache, else the database: a create's `_type`, and what it references that was read before and
 * not written since, cost no round trip to the database.
 */
export async function targetsOf(
  deps: Pick<EntitiesDeps, 'targets'>,
  tenant: Tenant,
  ids: readonly string[],
  types: ReadonlyMap<string, Entity>,
  read: readonly string[] = [],
): Promise<Map<string, Properties>> {
  const wanted = ids.filter((id) => !types.has(id));
  const [cached, loaded] = await Promise.all([
    deps.targets.many(tenant.name, tenant.entities, wanted.filter((id) => !read.includes(id))),
    tenant.entities.many(wanted.filter((id) => read.includes(id))),
  ]);
  return withTypes(new Map([...cached, ...loaded]), ids, types);
}

/**
 * Who a write must read from the database, whatever the target cache holds: a create's caller.
 * Their name labels `_owner` and `_created`; and a read is what fails a create within SPEC §11's
 * 2.5 s on a hung MongoDB before anything is written. The driver does not retry a read, but it
 * retries a write once, waiting for server selection again: a create whose first command were its
 * history insert took about 3 s to fail there (services/api/test/outage.test.ts).
 */
export const readFirst = (caller: Caller, creating = true): string[] => (creating && caller.personId ? [caller.personId] : []);

/**
 * `targetsOf` read from the database, past the target cache: for an import, whose many targets,
 * each read once, would only push out what writers read again and again.
 */
export async function targetsRead(tenant: Tenant, ids: readonly string[], types: ReadonlyMap<string, Entity>): Promise<Map<string, Properties>> {
  return withTypes(await tenant.entities.many(ids.filter((id) => !types.has(id))), ids, types);
}

function withTypes(loaded: Map<string, Entity>, ids: readonly string[], types: ReadonlyMap<string, Entity>): Map<string, Properties> {
  for (const id of ids) if (types.has(id)) loaded.set(id, types.get(id)!);
  return new Map([...loaded].map(([id, e]) => [id, e.properties]));
}

/**
 * What a write references, and, when it creates the entity, the caller too: a new entity's `_owner`
 * and `_created` name them, and are labelled like the references the client wrote (else the worker
 * would rewrite every new entity to label them). A change of an existing entity keeps the labels
 * its values have, so it reads only what it newly references (one read less per change).
 */
export const wantedBy = (result: WriteResult, caller: Caller, creating = true): string[] => [...result.references.map((r) => r.id), ...readFirst(caller, creating)];

/**
 * The rules that need other entities, given the write's targets (`targetsOf` its `wantedBy`):
 * references resolve and match their `reference_query`, definitions are valid and unique per type,
 * type names unique in the database.
 */
export async function checkAgainstTargets(
  tenant: Tenant,
  entity: Entity,
  result: WriteResult,
  caller: Caller,
  type: CompiledType,
  targets: ReadonlyMap<string, Properties>,
): Promise<void> {
  checkReferences(result.references, targets, caller, tenant.record.meta);
  await checkReferenceQueries(tenant, result, type);
  if (isDefinition(tenant, entity)) await checkDefinitionEntity(tenant, entity);
  if (isType(tenant, entity)) await checkTypeEntity(tenant, entity);
  await checkWebhookWrite(tenant, entity, result.written, caller);
}

/** `checkAgainstTargets` with the targets loaded; resolves to them (to label the references). */
export async function checkAgainstDatabase(
  deps: Pick<EntitiesDeps, 'targets'>,
  tenant: Tenant,
  entity: Entity,
  result: WriteResult,
  caller: Caller,
  type: CompiledType,
  types: ReadonlyMap<string, Entity>,
  creating: boolean,
): Promise<Map<string, Properties>> {
  const targets = await targetsOf(deps, tenant, wantedBy(result, caller, creating), types, readFirst(caller, creating));
  await checkAgainstTargets(tenant, entity, result, caller, type, targets);
  return targets;
}

async function checkDefinitionEntity(tenant: Tenant, entity: Entity): Promise<void> {
  const parent = definitionParent(entity);
  // Read fresh, under the database's definitions lease (`schemaLease` in write.ts).
  const [type, siblings] = await Promise.all([tenant.entities.many([parent]), tenant.entities.childrenOfType(parent, tenant.record.meta.property)]);
  checkPlacement(entity, type.get(parent)?.properties, siblings, tenant.record.meta);
}

async function checkTypeEntity(tenant: Tenant, entity: Entity): Promise<void> {
  const name = first(entity.properties, 'name')?.string;
  if (name === undefined) return;
  // Read fresh, under the database's schema lease (`underSchemaLease`): a type written at the same time is seen.
  const sameNamed = await tenant.entities.matching({ filters: typeNamed(tenant.record.meta.entity, name), terms: [] }, 2);
  const refusal = typeNameTaken(entity, sameNamed);
  if (refusal) throw refusal;
}
