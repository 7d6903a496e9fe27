import { isSystemProperty } from '../definitions/system';
import { newProperties, referencesOf, type Entity, type Properties } from '../entity';
import { typeOf } from '../references';
import { RIGHT_PROPERTIES } from '../rights';
import { changedProperties, onlyRelabelled } from './changes';
import { inheritsRights } from './inherit';

/**
 * What other entities need to know about one write of an entity: kept with the write (the
 * entity's outbox) until the worker has told them, since the entity may change again meanwhile.
 */
export interface EntityChanged {
  entity: string;
  /** The entity's type id (after the change; before it, for a deletion). */
  type: string | undefined;
  /** What happened to it. */
  event: 'created' | 'updated' | 'deleted';
  /** The properties whose values changed (for a creation or deletion: every property it has or had). */
  properties: string[];
  /** Whether any reference value changed. */
  references: boolean;
  /** Whether it has `_inheritrights` on (after the change). */
  inherits: boolean;
  /** Its `_parent`s before and after. */
  parents: string[];
  /** Every entity it referenced before or references after. */
  referenced: string[];
}

/** The entities a state of an entity points at through its own (non-system) reference properties. */
const userReferences = (properties: Properties) =>
  Object.entries(properties).flatMap(([name, values]) => (isSystemProperty(name) ? [] : values.flatMap((v) => (v.reference ? [v.reference] : []))));

/**
 * What other entities need to know about a write: `before` is undefined for a creation, `after`
 * for a deletion. Undefined when nothing changed.
 */
export function describeChange(before: Entity | undefined, after: Entity | undefined): EntityChanged | undefined {
  const id = (after ?? before)!._id;
  const old = before?.properties ?? newProperties();
  const now = after?.properties ?? newProperties();
  const changed = changedProperties(old, now);
  // A right whose people were only renamed grants nothing new: no child has to inherit it again
  // (each such change costs a lookup of the children, and a rename relabels all a person owns).
  for (const right of RIGHT_PROPERTIES) if (changed.has(right) && onlyRelabelled(old[right] ?? [], now[right] ?? [])) changed.delete(right);
  if (changed.size === 0) return undefined;
  const oldRefs = userReferences(old);
  const newRefs = userReferences(now);
  return {
    entity: id,
    type: typeOf(now) ?? typeOf(old),
    event: before === undefined ? 'created' : after === undefined ? 'deleted' : 'updated',
    properties: [...changed].sort(),
    references: oldRefs.join() !== newRefs.join(),
    inherits: inheritsRights(now),
    parents: [...new Set([...referencesOf(old, '_parent'), ...referencesOf(now, '_parent')])],
    referenced: [...new Set([...oldRefs, ...newRefs])],
  };
}
