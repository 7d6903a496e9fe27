import { isCredentialProperty } from './credentials';
import { definitionOf } from './definitions/lookup';
import type { PropertyDefinition } from './definitions/definition';
import { newProperties, type Entity, type Properties } from './entity';
import { forbidden, invalid } from './errors';
import { hasRight, type Caller } from './rights';
import type { Value } from './values/types';
import { INHERITED, assertOwned, isMandatory } from './write';

/** Finds a value on an entity by its `_id`. */
export function findValue(properties: Properties, valueId: string): Value | undefined {
  for (const [name, values] of Object.entries(properties)) {
    // A `_reference` entry bears the id of the value it stands for: the id addresses that value.
    if (name === '_reference') continue;
    const found = values.find((value) => value._id === valueId);
    if (found) return found;
  }
  return undefined;
}

/**
 * Removes one value (DELETE /property/<id>) under the same rules as writing it: a read-only
 * property's values (`_created` among them) cannot be removed, nor `_type`, nor the last `_owner`,
 * nor the last value of a mandatory property (docs/decisions.md: what `mandatory` means).
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
  const definition = definitionOf(removed.type, definitions);
  if (definition?.readonly) throw invalid(`${removed.type} is read-only.`);
  if (removed.inherited) throw invalid(`${removed.type}: ${INHERITED}.`);
  const right = definition?.writeRight ?? 'editor';
  // A person may revoke any credential of their own, whoever added it.
  const ownCredential = isCredentialProperty(removed.type) && entity._id === caller.personId;
  if (!ownCredential && !hasRight(entity.properties, caller, right)) throw forbidden(`deleting "${removed.type}" needs the ${right} right on this entity`);

  const properties = newProperties(Object.entries(entity.properties));
  const remaining = properties[removed.type]!.filter((value) => value._id !== valueId);
  if (remaining.length > 0) properties[removed.type] = remaining;
  else delete properties[removed.type];
  if (removed.type === '_owner') assertOwned(properties);
  if (remaining.length === 0 && definition !== undefined && isMandatory(definition)) {
    throw invalid(`"${removed.type}" is mandatory: its last value cannot be deleted.`);
  }
  return { properties, removed };
}
