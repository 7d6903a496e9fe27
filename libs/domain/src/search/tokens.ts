/** Longest prefix kept per word: longer query terms are cut to it and still match as prefixes. */
export const MAX_PREFIX = 32;

/**
 * Words of a text as search sees them: lowercased, accents folded (é → e, Ü → u), split at
 * anything that is not a letter or digit. "Crème Brûlée" → ["creme", "brulee"].
 */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/**
 * The index entries of a text: every prefix of every word (up to MAX_PREFIX characters). A query
 * term then matches "the beginning of some word" by equality, which any MongoDB-protocol engine
 * answers from a plain multikey index — no regular expressions, no $text.
 */
export function prefixes(text: string): string[] {
  const entries = new Set<string>();
  for (const word of words(text)) {
    const limit = Math.min(word.length, MAX_PREFIX);
    for (let length = 1; length <= limit; length++) entries.add(word.slice(0, length));
  }
  return [...entries];
}

/** The search terms of a `q` parameter, each cut to the longest indexed prefix. */
export function searchTerms(q: string): string[] {
  return [...new Set(words(q).map((word) => word.slice(0, MAX_PREFIX)))];
}
