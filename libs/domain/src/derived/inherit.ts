import { first, newProperties, type Properties } from '../entity';
import { RIGHT_PROPERTIES, holdersOf } from '../rights';
import type { Value } from '../values/types';

export function inheritsRights(properties: Properties): boolean {
  return first(properties, '_inheritrights')?.boolean === true;
}

/**
 * The entity's right lists with `_inheritrights` applied (SPEC §4): its own (explicit) values plus,
 * when the flag is on, every right its parents hold (their inherited ones too, so rights flow
 * down a whole tree), marked `inherited`. A right already held explicitly at the same level is
 * not repeated. Inherited values that still apply keep their ids, so a recomputation that changes
 * nothing writes nothing.
 */
export function inheritRights(
  properties: Properties,
  parents: readonly Properties[],
  stamp: { at: string; by: string },
  newId: () => string,
): { properties: Properties; changed: boolean } {
  const inheriting = inheritsRights(properties);
  const result = newProperties(Object.entries(properties));
  let changed = false;
  for (const right of RIGHT_PROPERTIES) {
    const values = properties[right] ?? [];
    const explicit = values.filter((value) => !value.inherited);
    const previous = new Map(values.filter((value) => value.inherited).map((value) => [value.reference, value]));
    // A parent's denied persons hold nothing there, so they pass nothing on (Entu's `_noaccess`).
    const wanted = new Set(inheriting ? parents.flatMap((parent) => holdersOf(parent, right)) : []);
    for (const value of explicit) wanted.delete(value.reference!);
    const inherited: Value[] = [...wanted].map(
      (person) => previous.get(person) ?? { _id: newId(), type: right, reference: person, inherited: true, created: stamp },
    );
    if (inherited.length !== previous.size || inherited.some((value) => !previous.has(value.reference))) changed = true;
    const next = [...explicit, ...inherited];
    if (next.length > 0) result[right] = next;
    else delete result[right];
  }
  return { properties: result, changed };
}
