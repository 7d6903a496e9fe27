import { isSecretProperty } from '../definitions/system';
import type { Properties } from '../entity';
import type { FilterField } from '../query/ast';
import { MAX_PREFIX, prefixes, words } from './tokens';

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
      const text = [value.string, value.number, value.date, value.filename].filter((part) => part !== undefined).join(' ');
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

export type SortScalar = string | number;
export type SortKeys = Record<string, Partial<Record<FilterField, { min: SortScalar; max: SortScalar }>>>;

/** Strings sort case- and accent-insensitively: "émile" between "Emil" and "Emma". */
function sortable(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

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
      const candidates: [FilterField, SortScalar | undefined][] = [
        ['string', value.string === undefined ? undefined : sortable(value.string.slice(0, 256))],
        ['number', value.number],
        ['date', value.date],
        ['datetime', value.datetime],
        ['filename', value.filename === undefined ? undefined : sortable(value.filename)],
        ['filesize', value.filesize],
        ['filetype', value.filetype],
      ];
      for (const [field, scalar] of candidates) {
        if (scalar === undefined) continue;
        const current = ((keys[name] ??= {})[field] ??= { min: scalar, max: scalar });
        if (scalar < current.min) current.min = scalar;
        if (scalar > current.max) current.max = scalar;
      }
    }
  }
  return keys;
}
