import { isSystemProperty } from '../definitions/system';
import { first, newProperties, type Properties } from '../entity';
import { ownersCanRead } from '../rights';
import type { Value } from '../values/types';

/**
 * `_reference`: every reference the entity makes through its own properties — each
 * value with `reference`, the label it carries (`string`), the property it is in (`property_type`)
 * and the referenced entity's type name (`entity_type`) — so that "who points at X, through what"
 * is one indexed query (`_reference.reference=X`), as Entu's client asks it. System properties
 * (`_type`, `_parent`, rights, `_created`…) are left out, as Entu leaves them out: otherwise every
 * person would be a "referrer" of all they created. Each entry keeps the `_id` of the value it
 * stands for (stable, and what that value is addressed by); the type name shows only where the
 * label does (the owners may read the target: `ownersCanRead`), and is kept from before for a
 * target not in `targets` (a write that loaded none).
 */
export function outgoingReferences(properties: Properties, targets: ReadonlyMap<string, Properties>): Value[] {
  const before = new Map((properties._reference ?? []).map((entry) => [entry._id, entry]));
  return Object.entries(properties).flatMap(([name, values]) =>
    isSystemProperty(name)
      ? []
      : values.flatMap((value): Value[] => {
          if (value.reference === undefined) return [];
          const target = targets.get(value.reference);
          const typeName = target ? (ownersCanRead(properties, target) ? first(target, '_type')?.string : undefined) : before.get(value._id)?.entity_type;
          return [
            {
              _id: value._id,
              type: '_reference',
              reference: value.reference,
              property_type: name,
              ...(value.string === undefined ? {} : { string: value.string }),
              ...(typeName === undefined ? {} : { entity_type: typeName }),
              ...(value.language === undefined ? {} : { language: value.language }),
              created: value.created,
            },
          ];
        }),
  );
}

/** The entity with its `_reference` brought up to date (`outgoingReferences`): after its references are labelled. */
export function withReferences(properties: Properties, targets: ReadonlyMap<string, Properties>): Properties {
  const result = newProperties(Object.entries(properties));
  const references = outgoingReferences(properties, targets);
  if (references.length > 0) result._reference = references;
  else delete result._reference;
  return result;
}

export interface ChangedInput {
  properties: Properties;
  /** Who changes it and when. */
  stamp: { at: string; by: string };
  newId(): string;
  /** A refresh by the worker, not a change of the entity's own values: `_changed` stays (filled from `_created` where missing). */
  refresh: boolean;
}

/**
 * The entity with its `_changed` brought up to date: the change's `stamp` on a change of its own
 * (keeping its `_id`); kept as it is on a refresh, where an entity stored before `_changed` existed
 * gets its `_created` (without its label: computed properties are not labelled).
 */
export function withChanged(input: ChangedInput): Properties {
  const { properties, stamp } = input;
  const changed = first(properties, '_changed');
  if (input.refresh && changed !== undefined) return properties;
  const result = newProperties(Object.entries(properties));
  if (!input.refresh) {
    result._changed = [{ _id: changed?._id ?? input.newId(), type: '_changed', datetime: stamp.at, reference: stamp.by, created: stamp }];
  } else {
    const created = first(properties, '_created');
    if (created) {
      const { string: _label, ...unlabelled } = created;
      result._changed = [{ ...unlabelled, _id: input.newId(), type: '_changed' }];
    }
  }
  return result;
}
