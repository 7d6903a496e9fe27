import type { FormulaPath } from '../formula/ast';
import { PERSON_LIST_PROPERTIES, READ_ACCESS_PROPERTIES } from '../rights';

/** What changed on an entity, as far as other entities can tell. */
export interface EntityChange {
  /** The `name` of the entity's type (what formula paths name). */
  typeName: string | undefined;
  /** The properties whose values changed; `all` when the entity was created or deleted. */
  properties: ReadonlySet<string> | 'all';
  /** Whether any of its reference values changed (it may now point elsewhere). */
  references: boolean;
}

/** Which related entities must be recomputed after a change (besides the entity itself). */
export interface Dependents {
  /** Its `_parent`s (old and new): their `_child.…` formulas read it. */
  parents: boolean;
  /** The entities it references (old and new): their `_referrer.…` formulas read it. */
  referenced: boolean;
  /** The entities referencing it: their `<ref>.…` formulas and reference labels read it. */
  referrers: boolean;
  /** Its children: with `_inheritrights` they copy its rights (less its denied persons). */
  children: boolean;
}

/**
 * Every path any formula of a database reads, so that a change fans out only to the entities
 * whose formulas can see it (a burst of writes to entities nobody reads schedules nothing).
 * A change of who may read the entity (its rights or `_sharing`) reaches everyone who copies from
 * it: what they may copy depends on it — every referrer, for its labels, and those
 * whose formulas read its type through any property.
 */
export function dependentsOf(paths: readonly FormulaPath[], change: EntityChange): Dependents {
  const all = change.properties === 'all';
  const touched = (property: string) => all || (change.properties as ReadonlySet<string>).has(property);
  // A creation or deletion touches every property: it reaches all of them anyway.
  const access = !all && READ_ACCESS_PROPERTIES.some(touched);
  const reads = (kind: FormulaPath['kind'], alsoWhen: boolean) =>
    paths.some((path) => path.kind === kind && (path.type === '*' || path.type === change.typeName) && (alsoWhen || touched(path.property)));
  return {
    parents: reads('child', touched('_parent') || access),
    referenced: reads('referrer', change.references || access),
    referrers: touched('name') || access || reads('reference', false),
    children: !all && PERSON_LIST_PROPERTIES.some(touched),
  };
}
