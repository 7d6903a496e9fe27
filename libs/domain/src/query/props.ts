import { invalid } from '../errors';
import { isAnyPropertyName } from '../names';
import { QUERY_FIELD_DESCRIPTORS } from '../values/registry';
import type { Value } from '../values/types';
import type { FilterField } from './ast';
import { shownFrom } from '../rights-shown';

/** At most this many entries in `props`. */
export const MAX_PROPS = 100;

/** The value fields a `props` path may name (`ordinal.number`): every field of every value type. */
const PATH_FIELDS: ReadonlySet<string> = new Set(QUERY_FIELD_DESCRIPTORS.map((field) => field.name));

/**
 * What `props` selects, per property: all of its values' fields (a plain name), or only these
 * fields of each value, beside its `_id` (paths, Entu's `ordinal.number`). A plain name wins over
 * paths of the same property.
 */
export type Selection = ReadonlyMap<string, 'all' | ReadonlySet<FilterField>>;

/**
 * `props=a,b.number,_type.string` (SPEC §7, §7a): property names, each optionally with one value
 * field. Throws `invalid` naming `props` for anything else: an unknown field, an empty entry, a
 * name no property can have, more than `MAX_PROPS` entries.
 */
export function parseProps(text: string): string[] {
  const entries = text.split(',');
  const bad = entries.length > MAX_PROPS ? `at most ${MAX_PROPS} entries` : entries.map(problemOf).find((problem) => problem !== undefined);
  if (bad !== undefined) throw invalid('The query is invalid.', [{ parameter: 'props', message: bad }]);
  return entries;
}

function problemOf(entry: string): string | undefined {
  const [name = '', field, ...rest] = entry.split('.');
  if (!isAnyPropertyName(name) || rest.length > 0) return `"${entry.slice(0, 100)}" is not a property name or <property>.<field>`;
  if (field !== undefined && !PATH_FIELDS.has(field)) return `"${field.slice(0, 100)}" is not a value field (${[...PATH_FIELDS].join(', ')})`;
  return undefined;
}

/** What a parsed `props` selects (`parseProps` made its entries well formed). */
export function selectionOf(props: readonly string[]): Selection {
  const selection = new Map<string, 'all' | Set<FilterField>>();
  for (const entry of props) {
    const [name, field] = entry.split('.') as [string, FilterField | undefined];
    const current = selection.get(name);
    if (field === undefined) selection.set(name, 'all');
    else if (current === undefined) selection.set(name, new Set([field]));
    else if (current !== 'all') current.add(field);
  }
  return selection;
}

/** The stored properties `props` needs, each once: what the store reads of each entity (a cumulative right list needs the levels above it). */
export function selectedProperties(props: readonly string[]): string[] {
  return [...new Set([...selectionOf(props).keys()].flatMap(shownFrom))];
}

/** A value as a path shows it: its `_id` and the selected fields it has (a value without any still shows its `_id`). */
export function selectFields(value: Value, fields: ReadonlySet<FilterField>): Partial<Value> {
  const shown: Record<string, unknown> = { _id: value._id };
  for (const field of fields) if (value[field] !== undefined) shown[field] = value[field];
  return shown as Partial<Value>;
}
