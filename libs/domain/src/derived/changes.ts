import { isComputedProperty } from '../definitions/system';
import type { Properties } from '../entity';
import type { Value } from '../values/types';

function sameValue(a: Value, b: Value): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const x = a[key as keyof Value];
    const y = b[key as keyof Value];
    if (key === 'created' ? a.created.at !== b.created.at || a.created.by !== b.created.by : x !== y) return false;
  }
  return true;
}

/** The names of the properties whose values differ between two states of an entity (computed ones aside: they follow the others). */
export function changedProperties(before: Properties, after: Properties): Set<string> {
  const changed = new Set<string>();
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (isComputedProperty(name)) continue;
    const a = before[name] ?? [];
    const b = after[name] ?? [];
    if (a.length !== b.length || a.some((value, i) => !sameValue(value, b[i]!))) changed.add(name);
  }
  return changed;
}

const unlabelled = (value: Value): Value => {
  if (value.reference === undefined) return value;
  const { string: _label, ...rest } = value;
  return rest as Value;
};

/** Whether two values say the same, who set them when included, apart from a reference's label (display, kept fresh by the worker). */
export function sameUnlabelled(a: Value, b: Value): boolean {
  return sameValue(unlabelled(a), unlabelled(b));
}

/**
 * Whether a property's values differ at most in the labels of their references (a referenced
 * entity was renamed and the values relabelled): they still name the same entities.
 */
export function onlyRelabelled(before: readonly Value[], after: readonly Value[]): boolean {
  return before.length === after.length && before.every((value, i) => sameUnlabelled(value, after[i]!));
}
