/** A type as far as `q` is concerned: its name, and the properties marked `search`. */
export interface SearchScope {
  name: string | undefined;
  searchable: ReadonlySet<string>;
}

/**
 * What a list with `q` says when no property it could search is searchable: `q` then
 * matches nothing, and an empty page alone reads as "no such book". `types` are those the query is
 * about — the ones its `_type.reference` filter `named`, else every type of the database.
 * Undefined when `q` can match something.
 */
export function unsearchableWarning(terms: readonly string[], types: readonly SearchScope[], named: boolean): string | undefined {
  if (terms.length === 0 || types.some((type) => type.searchable.size > 0)) return undefined;
  const names = types.map((type) => `"${type.name ?? '(unnamed)'}"`);
  const none = !named
    ? 'no type of this database has a searchable property'
    : names.length === 1
      ? `type ${names[0]} has no searchable property`
      : `types ${names.join(', ')} have no searchable property`;
  return `q matches nothing here: ${none}. Mark a definition "search": true to make q find its values.`;
}
