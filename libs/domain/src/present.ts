import { SECRET_SHOWN, isSecretProperty } from './definitions/system';
import { newProperties, type Entity } from './entity';
import { selectFields, selectionOf } from './query/props';
import { withShownRights } from './rights-shown';
import type { Value } from './values/types';

/**
 * A value as clients see it: secret values (API key hashes) are never shown again after they are
 * generated, whoever reads them and however (entity, list, `props`, property by id, `/aggregate`).
 */
export function presentValue(value: Value): Value {
  return isSecretProperty(value.type) ? { ...value, string: SECRET_SHOWN } : value;
}

/**
 * An entity as the interface returns it (§2.1): `_id` and one array per property name, the right
 * lists cumulative (`withShownRights`), limited to `props` when given (a path, `ordinal.number`,
 * shows only that field of each value, with its `_id`).
 */
export function presentEntity(entity: Entity, props?: readonly string[]): Record<string, unknown> {
  const shown: Record<string, unknown> = { _id: entity._id };
  const selection = props === undefined ? undefined : selectionOf(props);
  for (const [name, values] of Object.entries(withShownRights(entity.properties))) {
    const selected = selection === undefined ? 'all' : selection.get(name);
    if (selected === undefined) continue;
    const presented = values.map(presentValue);
    shown[name] = selected === 'all' ? presented : presented.map((value) => selectFields(value, selected));
  }
  return shown;
}

/**
 * Values grouped by property name, as a create's answer returns them (adding values answers one
 * array instead, SPEC §7a). Not masked: a write's values include a just-generated API key, which its
 * response shows once.
 */
export function groupByProperty(values: Value[]): Record<string, Value[]> {
  const grouped = newProperties();
  for (const value of values) (grouped[value.type] ??= []).push(value);
  return grouped;
}
