import type { CompiledType } from '../definitions/compiled';
import type { FormulaPath } from '../formula/ast';
import type { EntityChanged } from './describe';
import { dependentsOf, type Dependents } from './dependents';

/** What the settling rules need to know of a database's schema (the schema cache has it). */
export interface SchemaView {
  /** Type id → the type's `name` (what formula paths name). */
  typeNames: ReadonlyMap<string, string>;
  /** Every path into other entities that some formula of the database reads. */
  paths: readonly FormulaPath[];
  typeOf(typeId: string | undefined): CompiledType;
}

/** Which relations of a changed entity read the change, by the database's formulas. */
export function readersOf(schema: SchemaView, change: EntityChanged): Dependents {
  return dependentsOf(schema.paths, {
    typeName: change.type === undefined ? undefined : schema.typeNames.get(change.type),
    properties: change.event === 'updated' ? new Set(change.properties) : 'all',
    references: change.references,
  });
}

/**
 * Whether a written entity needs a recomputation of its own: when its type has formulas reading
 * other entities, its inherited rights may have changed, or its owners did. Otherwise its labels
 * need none: the write labelled every reference it stored.
 */
export function needsOwnRefresh(schema: SchemaView, change: EntityChanged): boolean {
  if (change.event === 'deleted') return false;
  // Turned off, inherited rights must go; on, they follow the parents.
  if (change.properties.includes('_inheritrights')) return true;
  if (change.inherits && change.properties.includes('_parent')) return true;
  // Its owners decide which labels it may show of the entities it references. A new
  // entity's write labelled all of them for its first owners. A denied owner is no longer one.
  if (change.event === 'updated' && (change.properties.includes('_owner') || change.properties.includes('_noaccess'))) return true;
  return schema.typeOf(change.type).formulas.some((formula) => formula.paths.length > 0);
}

/**
 * Whether a change needs the worker at all: someone may read it (decided from the schema alone,
 * without looking for the readers), or the entity must be recomputed itself. A deletion always
 * does: references to the entity must go.
 */
export function needsSettling(schema: SchemaView, change: EntityChanged): boolean {
  if (change.event === 'deleted' || needsOwnRefresh(schema, change)) return true;
  const dependents = readersOf(schema, change);
  if (dependents.parents || dependents.referenced) return true;
  return change.event === 'updated' && (dependents.referrers || dependents.children);
}
