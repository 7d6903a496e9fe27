import { first, newProperties, type Properties } from '../entity';
import { isComputedProperty } from '../definitions/system';
import { ownersCanRead } from '../rights';

/** What a reference to an entity shows as its `string`: the entity's first `name`. */
export function labelOf(properties: Properties): string | undefined {
  return first(properties, 'name')?.string;
}

/**
 * Sets each reference value's `string` to its target's label (none when the target has no name).
 * A label copies the target's `name`, so it is set only while the entity's owners may read the
 * target (`ownersCanRead`); otherwise it is dropped and the reference keeps only its id — the
 * entity's own value, which its owner may still remove. Only references whose target is in
 * `targets` are touched. `changed` says whether any label moved.
 */
export function labelReferences(properties: Properties, targets: ReadonlyMap<string, Properties>): { properties: Properties; changed: boolean } {
  let changed = false;
  const labelled = newProperties(
    Object.entries(properties).map(([name, values]) => [
      name,
      // Computed properties are computed, not labelled: `_reference` takes its labels from the
      // values it stands for, `_changed` names its author by id (a write does not load its caller).
      isComputedProperty(name) ? values : values.map((value) => {
        const target = value.reference === undefined ? undefined : targets.get(value.reference);
        if (!target) return value;
        const label = ownersCanRead(properties, target) ? labelOf(target) : undefined;
        if (value.string === label) return value;
        changed = true;
        const { string: _old, ...rest } = value;
        return label === undefined ? rest : { ...rest, string: label };
      }),
    ]),
  );
  return { properties: labelled, changed };
}

/**
 * Drops every reference value pointing at an entity that no longer exists (SPEC §7: values
 * elsewhere that reference a deleted entity are removed). `_type` is kept: an entity always has one.
 */
export function dropReferencesTo(properties: Properties, exists: (id: string) => boolean): { properties: Properties; changed: boolean } {
  let changed = false;
  const kept = newProperties();
  for (const [name, values] of Object.entries(properties)) {
    const remaining = name === '_type' ? values : values.filter((value) => value.reference === undefined || exists(value.reference));
    if (remaining.length !== values.length) changed = true;
    if (remaining.length > 0) kept[name] = remaining;
  }
  return { properties: kept, changed };
}
