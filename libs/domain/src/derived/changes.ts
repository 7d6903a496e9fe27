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

/** The names of the properties whose values differ between two states of an entity. */
export function changedProperties(before: Properties, after: Properties): Set<string> {
  const changed = new Set<string>();
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = before[name] ?? [];
    const b = after[name] ?? [];
    if (a.length !== b.length || a.some((value, i) => !sameValue(value, b[i]!))) changed.add(name);
  }
  return changed;
}
