import {
  changedProperties,
  computeFormulas,
  dropReferencesTo,
  formulasOf,
  formulaValuesOf,
  inheritRights,
  isSchemaType,
  isSystemProperty,
  labelReferences,
  referencesOf,
  searchableOf,
  typeOf,
  type Entity,
  type FormulaPath,
  type FormulaValue,
  type Properties,
} from '@entia/domain';
import type { DatabaseRecord, EntityCollection } from '@entia/store';
import { newId } from '@entia/store';
import type { DeriveDeps } from './deps';
import { describeChange } from './change';
import { dependentIds, scheduleRefresh } from './schedule';
import { typeNameOf, type Schema } from './schema';

// Compare-and-set attempts before giving up on this run (the job is retried later).
const MAX_ATTEMPTS = 5;

export interface Refreshed {
  /** The entity as it is now; undefined when it does not exist. */
  entity: Entity | undefined;
  /** Whether this run changed it. */
  changed: boolean;
  /** Whether its dependents were left alone because the cascade is too deep (a cycle). */
  cutOff: boolean;
}

const allReferences = (properties: Properties) => Object.values(properties).flatMap((values) => values.flatMap((v) => (v.reference ? [v.reference] : [])));

const byId = (a: Entity, b: Entity) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/** Whether `other` points at `id` through one of its own (non-system) reference properties. */
const refersTo = (other: Entity, id: string) =>
  Object.entries(other.properties).some(([name, values]) => !isSystemProperty(name) && values.some((value) => value.reference === id));

/**
 * What the formulas of `entity` read elsewhere, loaded once: its children, the entities referring
 * to it, and those it references (already in `targets`). Entities are in id order, so a formula
 * over several of them gives the same result every time.
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
  return (path) => {
    const pool =
      path.kind === 'reference'
        ? referencesOf(entity.properties, path.via).flatMap((id) => (targets.has(id) ? [targets.get(id)!] : []))
        : pools[path.kind];
    return pool
      .filter((other) => path.type === '*' || typeNameOf(schema, other.properties) === path.type)
      .flatMap((other) => (path.property === '_id' ? [other._id] : formulaValuesOf(other.properties[path.property] ?? [])));
  };
}

/** The entity's derived data brought up to date from the entities it reads (no I/O but reads). */
async function derive(entities: EntityCollection, schema: Schema, record: DatabaseRecord, entity: Entity): Promise<Properties> {
  const stamp = { at: new Date().toISOString(), by: record.databaseEntity };
  const targets = await entities.many(allReferences(entity.properties));
  const kept = dropReferencesTo(entity.properties, (id) => targets.has(id)).properties;
  const targetProperties = new Map([...targets].map(([id, target]) => [id, target.properties]));
  const labelled = labelReferences(kept, targetProperties).properties;
  const parents = referencesOf(labelled, '_parent').flatMap((id) => (targets.has(id) ? [targets.get(id)!.properties] : []));
  const inherited = inheritRights(labelled, parents, stamp, newId).properties;
  const definitions = schema.definitionsOf(typeOf(inherited));
  const paths = formulasOf(definitions).flatMap((formula) => formula.paths);
  const current = { _id: entity._id, properties: inherited };
  const resolve = await pathResolver(entities, schema, current, targets, paths);
  return computeFormulas(current, definitions, { stamp, newId, resolve }).properties;
}

/**
 * Recomputes what an entity derives from others (SPEC §9): drops references to deleted entities,
 * relabels references, applies `_inheritrights`, evaluates every formula. When that changes the
 * entity, it is stored (compare-and-set), cached copies are invalidated, and the entities reading
 * it are scheduled one cascade step deeper. Idempotent: a second run finds nothing to change.
 */
export async function refreshEntity(deps: DeriveDeps, db: string, record: DatabaseRecord, id: string, depth: number): Promise<Refreshed> {
  const entities = deps.store.entities(db);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const current = await entities.get(id);
    if (!current) return { entity: undefined, changed: false, cutOff: false };
    const schema = await deps.schemas.of(db, record);
    const properties = await derive(entities, schema, record, current.entity);
    const changed = changedProperties(current.entity.properties, properties);
    if (changed.size === 0) return { entity: current.entity, changed: false, cutOff: false };

    const entity = { _id: id, properties };
    const type = typeOf(properties);
    if (!(await entities.replace(entity, current.version, searchableOf(schema.definitionsOf(type))))) continue;
    await deps.generations.touch(db, [id], isSchemaType(record.meta, type));
    const dependents = await dependentIds(deps, schema, describeChange(db, current.entity, entity, depth)!);
    const scheduled = await scheduleRefresh(deps, db, dependents, depth + 1);
    return { entity, changed: true, cutOff: dependents.size > 0 && !scheduled };
  }
  throw new Error(`entity ${id} of ${db} kept changing while it was recomputed`);
}
