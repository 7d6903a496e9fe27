import type { Value } from './values/types';

/** An entity's properties: each name holds its list of values. */
export type Properties = Record<string, Value[]>;

/** An entity as the rules see it: ids are 24-hex strings, datetimes ISO strings. */
export interface Entity {
  _id: string;
  properties: Properties;
}

/**
 * A properties object without a prototype: property names come from users, and a name like
 * `constructor` or `toString` must find nothing but its own values.
 */
export function newProperties(entries: Iterable<readonly [string, Value[]]> = []): Properties {
  const properties = Object.create(null) as Properties;
  for (const [name, values] of entries) properties[name] = values;
  return properties;
}

/** The value fields of the first value of `name`, or undefined: for single-valued system properties. */
export function first(properties: Properties, name: string): Value | undefined {
  return properties[name]?.[0];
}

/** Every `reference` among the values of `name`. */
export function referencesOf(properties: Properties, name: string): string[] {
  return (properties[name] ?? []).flatMap((value) => (value.reference === undefined ? [] : [value.reference]));
}

/** Whether a value is a file's (its object lives in object storage under the value's id). */
export function isFileValue(value: Value): value is Value & { filename: string; filesize: number; filetype: string } {
  return value.filename !== undefined && value.filesize !== undefined && value.filetype !== undefined;
}
