import {
  computeFormulas,
  dropReferencesTo,
  formulasOf,
  inheritRights,
  isSystemProperty,
  labelReferences,
  pathValues,
  referencesOf,
  typeOf,
  type Entity,
  type FormulaPath,
  type FormulaValue,
  type Properties,
} from '@entia/domain';
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
async function pathResolver(
  entities: EntityCollection,
  schema: Schema,
  entity: Entity,
  targets: ReadonlyMap<string, Entity>,
  paths: readonly FormulaPath[],
): Promise<(path: FormulaPath) => FormulaValue[]> {
  const [children, referrers] = await Promise.all([
    paths.some((path) => path.kind === 'child') ? entities.children(entity._id) : [],
    paths.some((path) => path.kind === 'referrer') ? entities.referrers(entity._id) : [],
  ]);
  const pools = {
    child: children.sort(byId),
    referrer: referrers.filter((other) => refersTo(other, entity._id)).sort(byId),
  };
  const typeName = (properties: Properties) => typeNameOf(schema, properties);
  return (path) => {
    const pool =
      path.kind === 'reference'
        ? referencesOf(entity.properties, path.via).flatMap((id) => (targets.has(id) ? [targets.get(id)!] : []))
        : pools[path.kind];
    return pathValues(entity.properties, path, pool, typeName);
  };
}

/**
 * The entity's derived data brought up to date from the entities it reads (SPEC §9): references to
 * deleted entities dropped, `_inheritrights` applied, references relabelled, every formula
 * evaluated. Rights first: its owners, inherited ones included, decide which labels and formula
 * terms it may copy (issue 14). Reads only.
 */
export async function derive(entities: EntityCollection, schema: Schema, record: DatabaseRecord, entity: Entity): Promise<Properties> {
  const stamp = { at: new Date().toISOString(), by: record.databaseEntity };
  const targets = await entities.many(allReferences(entity.properties));
  const kept = dropReferencesTo(entity.properties, (id) => targets.has(id)).properties;
  const parents = referencesOf(kept, '_parent').flatMap((id) => (targets.has(id) ? [targets.get(id)!.properties] : []));
  const inherited = inheritRights(kept, parents, stamp, newId).properties;
  const targetProperties = new Map([...targets].map(([id, target]) => [id, target.properties]));
  const labelled = labelReferences(inherited, targetProperties).properties;
  const definitions = schema.definitionsOf(typeOf(labelled));
  const paths = formulasOf(definitions).flatMap((formula) => formula.paths);
  const current = { _id: entity._id, properties: labelled };
  const resolve = await pathResolver(entities, schema, current, targets, paths);
  return computeFormulas(current, definitions, { stamp, newId, resolve }).properties;
}
