import { definitionOf } from './definitions/lookup';
import type { PropertyDefinition } from './definitions/definition';
import { newProperties, type Entity, type Properties } from './entity';
import { forbidden, invalid } from './errors';
import { hasRight, type Caller } from './rights';
import type { Value } from './values/types';
import { INHERITED, assertOwned } from './write';

/** Finds a value on an entity by its `_id`. */
export function findValue(properties: Properties, valueId: string): Value | undefined {
  for (const values of Object.values(properties)) {
    const found = values.find((value) => value._id === valueId);
    if (found) return found;
  }
  return undefined;
}

/**
 * Removes one value (DELETE /property/<id>) under the same rights as writing it. `_type` and
 * `_created` cannot be removed, nor the last `_owner`.
 */
export function removeValue(
  entity: Entity,
  valueId: string,
  caller: Required<Caller>,
  definitions: ReadonlyMap<string, PropertyDefinition>,
): { properties: Properties; removed: Value } {
  const removed = findValue(entity.properties, valueId);
  if (!removed) throw invalid(`No value ${valueId} on this entity.`);
  if (removed.type === '_type') throw invalid('_type cannot be deleted.');
  if (removed.type === '_created') throw invalid('_created is read-only.');
  if (removed.inherited) throw invalid(`${removed.type}: ${INHERITED}.`);
  const right = definitionOf(removed.type, definitions)?.writeRight ?? 'editor';
  const ownKey = removed.type === '_api_key' && entity._id === caller.personId;
  if (!ownKey && !hasRight(entity.properties, caller, right)) throw forbidden(`deleting "${removed.type}" needs the ${right} right on this entity`);

  const properties = newProperties(Object.entries(entity.properties));
  const remaining = properties[removed.type]!.filter((value) => value._id !== valueId);
  if (remaining.length > 0) properties[removed.type] = remaining;
  else delete properties[removed.type];
  if (removed.type === '_owner') assertOwned(properties);
  return { properties, removed };
}
