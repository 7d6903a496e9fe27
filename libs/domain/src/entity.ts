import type { Value } from './values/types';

/** An entity's properties: each name holds its list of values. */
export type Properties = Record<string, Value[]>;

/** An entity as the rules see it: ids are 24-hex strings, datetimes ISO strings. */
export interface Entity {
  _id: string;
  properties: Properties;
}

/** The value fields of the first value of `name`, or undefined: for single-valued system properties. */
export function first(properties: Properties, name: string): Value | undefined {
  return properties[name]?.[0];
}

/** Every `reference` among the values of `name`. */
export function referencesOf(properties: Properties, name: string): string[] {
  return (properties[name] ?? []).flatMap((value) => (value.reference === undefined ? [] : [value.reference]));
}
