import { isSecretProperty } from '../definitions/system';
import type { Properties } from '../entity';
import type { FilterField } from '../query/ast';
import type { SortScalar } from '../values/descriptor';
import { QUERY_FIELD_DESCRIPTORS } from '../values/registry';
import { MAX_PREFIX, prefixes, words } from './tokens';

export type { SortScalar } from '../values/descriptor';

/** The fields whose values `q` searches, and those `sort=` orders by (each field's own rule). */
const SEARCHED_FIELDS = QUERY_FIELD_DESCRIPTORS.filter((field) => field.searchText !== undefined);
const SORTED_FIELDS = QUERY_FIELD_DESCRIPTORS.filter((field) => field.sortKey !== undefined);

/** Words beyond this many per entity are not searchable: it bounds a document's index entries. */
export const MAX_SEARCH_WORDS = 2000;

/**
 * The search index entries of an entity: the word prefixes of every value of its searchable
 * properties (SPEC §7 `q`), plus the referenced entities' labels where values carry them.
 */
export function searchIndex(properties: Properties, searchable: ReadonlySet<string>): string[] {
  const seen = new Set<string>();
  const entries = new Set<string>();
  for (const name of searchable) {
    // No definition can make a secret searchable today (user names cannot start with `_`); this
    // keeps `q` from ever matching key material should one try.
    if (isSecretProperty(name)) continue;
    for (const value of properties[name] ?? []) {
      const text = SEARCHED_FIELDS.flatMap((field) => (value[field.name] === undefined ? [] : [field.searchText!(value[field.name]!)])).join(' ');
      for (const word of words(text)) {
        if (seen.size >= MAX_SEARCH_WORDS) return [...entries];
        if (seen.has(word)) continue;
        seen.add(word);
        for (const prefix of prefixes(word.slice(0, MAX_PREFIX))) entries.add(prefix);
      }
    }
  }
  return [...entries];
}

export type SortKeys = Record<string, Partial<Record<FilterField, { min: SortScalar; max: SortScalar }>>>;

/**
 * Per property and field, the smallest and largest value: scalar sort keys, so "sort by a list
 * property" orders the same on every engine (ascending by the smallest, descending by the largest).
 */
export function sortKeys(properties: Properties): SortKeys {
  const keys = Object.create(null) as SortKeys;
  for (const [name, values] of Object.entries(properties)) {
    // Nobody may sort by a secret: its order would tell its values apart.
    if (isSecretProperty(name)) continue;
    for (const value of values) {
      for (const field of SORTED_FIELDS) {
        if (value[field.name] === undefined) continue;
        const scalar = field.sortKey!(value[field.name]!);
        const current = ((keys[name] ??= {})[field.name] ??= { min: scalar, max: scalar });
        if (scalar < current.min) current.min = scalar;
        if (scalar > current.max) current.max = scalar;
      }
    }
  }
  return keys;
}
