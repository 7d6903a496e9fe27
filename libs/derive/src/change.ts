import {
  RIGHT_PROPERTIES,
  changedProperties,
  inheritsRights,
  isSystemProperty,
  newProperties,
  onlyRelabelled,
  referencesOf,
  typeOf,
  type Entity,
  type Properties,
} from '@entia/domain';
import type { EntityChanged } from '@entia/jobs';

/** The entities a state of an entity points at through its own (non-system) reference properties. */
const userReferences = (properties: Properties) =>
  Object.entries(properties).flatMap(([name, values]) => (isSystemProperty(name) ? [] : values.flatMap((v) => (v.reference ? [v.reference] : []))));

/**
 * What other entities need to know about a write: `before` is undefined for a creation, `after`
 * for a deletion. Undefined when nothing changed.
 */
export function describeChange(db: string, before: Entity | undefined, after: Entity | undefined, depth: number): EntityChanged | undefined {
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
    db,
    entity: id,
    type: typeOf(now) ?? typeOf(old),
    event: before === undefined ? 'created' : after === undefined ? 'deleted' : 'updated',
    properties: [...changed].sort(),
    references: oldRefs.join() !== newRefs.join(),
    inherits: inheritsRights(now),
    parents: [...new Set([...referencesOf(old, '_parent'), ...referencesOf(now, '_parent')])],
    referenced: [...new Set([...oldRefs, ...newRefs])],
    depth,
  };
}
