import { isSystemProperty, materialise, pathValues, referencesOf, typeOf, type Entity, type EntityReads, type FormulaPath, type Properties, type StoredEntity } from '@entia/domain';
import type { DatabaseRecord, EntityCollection } from '@entia/store';
import { newId } from '@entia/store';
import { typeNameOf, type Schema } from './schema';

const allReferences = (properties: Properties) => Object.values(properties).flatMap((values) => values.flatMap((v) => (v.reference ? [v.reference] : [])));

const byId = (a: Entity, b: Entity) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/** Whether `other` points at `id` through one of its own (non-system) reference properties. */
const refersTo = (other: Entity, id: string) =>
  Object.entries(other.properties).some(([name, values]) => !isSystemProperty(name) && values.some((value) => value.reference === id));

/**
 * What the formulas of `entity` read elsewhere, loaded once: its children, the entities referring
 * to it, and those it references (already in `targets`). Entities are in id order, so a formula
 * over several of them gives the same result every time. Which of them its owners may read, and
 * what is read of those, is the domain's rule (`pathValues`).
 */
async function readsOf(
  entities: EntityCollection,
  schema: Schema,
  entity: Entity,
  targets: ReadonlyMap<string, Entity>,
  paths: readonly FormulaPath[],
): Promise<EntityReads> {
  const [children, referrers] = await Promise.all([
    paths.some((path) => path.kind === 'child') ? entities.children(entity._id) : [],
    paths.some((path) => path.kind === 'referrer') ? entities.referrers(entity._id) : [],
  ]);
  const pools = {
    child: children.sort(byId),
    referrer: referrers.filter((other) => refersTo(other, entity._id)).sort(byId),
  };
  const typeName = (properties: Properties) => typeNameOf(schema, properties);
  return {
    resolve(holder, path) {
      const pool =
        path.kind === 'reference'
          ? referencesOf(entity.properties, path.via).flatMap((id) => (targets.has(id) ? [targets.get(id)!] : []))
          : pools[path.kind];
      return pathValues(holder, path, pool, typeName);
    },
  };
}

/**
 * The entity as stored brought up to date from the entities it reads (SPEC §9): loads what it
 * reads, then `materialise`s it. Reads only.
 */
export async function refreshed(entities: EntityCollection, schema: Schema, record: DatabaseRecord, entity: Entity): Promise<StoredEntity> {
  const stamp = { at: new Date().toISOString(), by: record.databaseEntity };
  const targets = await entities.many(allReferences(entity.properties));
  const type = schema.typeOf(typeOf(entity.properties));
  const reads = await readsOf(entities, schema, entity, targets, type.formulas.flatMap((formula) => formula.paths));
  const targetProperties = new Map([...targets].map(([id, target]) => [id, target.properties]));
  const { entity: next, index } = materialise({ entity, type, targets: targetProperties, stamp, newId, reads });
  return { entity: next, index };
}
