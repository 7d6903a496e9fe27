import { newProperties, type Properties } from './entity';
import { inheritsRights } from './derived/inherit';
import { RIGHT_PROPERTIES } from './rights';
import type { Value } from './values/types';

type RightProperty = (typeof RIGHT_PROPERTIES)[number];

/** `_parent_owner`… : the rights an entity inherits from its parents, shown apart (Entu's client reads them so). */
export const PARENT_RIGHT_PROPERTIES = RIGHT_PROPERTIES.map((right) => `_parent${right}` as const);

/**
 * The stored properties a shown one is made of: a right list is cumulative (`_expander` shows the
 * owners and editors too), a parent right list shows the inherited ones of its level and above.
 * Everything else is itself. What the store must read for `props` to show it.
 */
export function shownFrom(name: string): readonly string[] {
  const right = RIGHT_PROPERTIES.indexOf(name as RightProperty);
  if (right >= 0) return RIGHT_PROPERTIES.slice(0, right + 1);
  const parentRight = PARENT_RIGHT_PROPERTIES.indexOf(name as (typeof PARENT_RIGHT_PROPERTIES)[number]);
  if (parentRight >= 0) return [...RIGHT_PROPERTIES.slice(0, parentRight + 1), '_inheritrights'];
  return [name];
}

/**
 * The right lists as they are meant (SPEC §4: owner ⊇ editor ⊇ expander ⊇ viewer, §7a): each
 * level also lists the persons of the levels above it. An implied entry is the very value it comes
 * from — the same `_id` (deleting it deletes that right), `reference`, label and `inherited` —
 * shown under this level with `property_type` naming the property it is stored in, so that a
 * client can tell it from the level's own values and never offers it as one of them. A person
 * holding a level explicitly is listed once, by that value. With `_inheritrights` on, the
 * inherited entries of each (cumulative) level are also shown as `_parent_<level>`.
 */
export function withShownRights(properties: Properties): Properties {
  const shown = newProperties(Object.entries(properties));
  let above: Value[] = [];
  RIGHT_PROPERTIES.forEach((right, level) => {
    const own = properties[right] ?? [];
    const listed = new Set(own.map((value) => value.reference));
    const implied = above.filter((value) => !listed.has(value.reference)).map((value) => ({ ...value, type: right, property_type: value.property_type ?? value.type }));
    const all = [...own, ...implied];
    if (all.length > 0) shown[right] = all;
    above = all;
    const inherited = all.filter((value) => value.inherited);
    if (inheritsRights(properties) && inherited.length > 0) shown[PARENT_RIGHT_PROPERTIES[level]!] = inherited.map((value) => ({ ...value, type: PARENT_RIGHT_PROPERTIES[level]! }));
  });
  return shown;
}
