import { SECRET_SHOWN, isSecretProperty } from './definitions/system';
import { newProperties, type Entity } from './entity';
import type { Value } from './values/types';

/**
 * A value as clients see it: secret values (API key hashes) are never shown again after they are
 * generated, whoever reads them and however (entity, list, `props`, property by id, `/aggregate`).
 */
export function presentValue(value: Value): Value {
  return isSecretProperty(value.type) ? { ...value, string: SECRET_SHOWN } : value;
}

/**
 * An entity as the interface returns it (§2.1): `_id` and one array per property name, limited to
 * `props` when given.
 */
export function presentEntity(entity: Entity, props?: readonly string[]): Record<string, unknown> {
  const shown: Record<string, unknown> = { _id: entity._id };
  for (const [name, values] of Object.entries(entity.properties)) {
    if (props === undefined || props.includes(name)) shown[name] = values.map(presentValue);
  }
  return shown;
}

/**
 * Values grouped by property name, as write responses return them. Not masked: a write's values
 * include a just-generated API key, which its response shows once.
 */
export function groupByProperty(values: Value[]): Record<string, Value[]> {
  const grouped = newProperties();
  for (const value of values) (grouped[value.type] ??= []).push(value);
  return grouped;
}
