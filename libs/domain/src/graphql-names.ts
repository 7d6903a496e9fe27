/**
 * GraphQL names for a database's types and properties. GraphQL names are
 * `/^[_A-Za-z][_0-9A-Za-z]*$/` and may not start with `__`; ours are free text (types) or may hold
 * characters GraphQL refuses. The rule is pure and deterministic, so the same database always gets
 * the same schema, and collision-free: two sources that sanitise alike get `_2`, `_3`… in the
 * order given (callers pass them in a stable order, e.g. by id).
 */
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** One name made valid: other characters become `_`; a leading digit or `__` gets a prefix. */
export function sanitiseGraphqlName(text: string, prefix: string): string {
  let name = text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^_0-9A-Za-z]/g, '_');
  if (name === '' || /^[0-9]/.test(name)) name = `${prefix}${name}`;
  if (name.startsWith('__')) name = `${prefix}${name.replace(/^_+/, '')}`;
  return NAME.test(name) ? name : `${prefix}_`;
}

/** A type name: sanitised, first letter upper case (GraphQL's convention, and never `_`-led). */
export function graphqlTypeName(text: string): string {
  const name = sanitiseGraphqlName(text.replace(/^_+/, ''), 'T');
  return name[0]!.toUpperCase() + name.slice(1);
}

/**
 * Unique names for `sources` (in order), avoiding `reserved` (names the schema itself uses): the
 * first to claim a name keeps it, later ones get `_2`, `_3`… Each name also claims the names made
 * of it and `suffixes` (a type `Book` claims `BookList`, `BookFilter`), which must be free too.
 * Returns source → name.
 */
export function uniqueGraphqlNames(
  sources: readonly string[],
  sanitise: (text: string) => string,
  reserved: Iterable<string> = [],
  suffixes: readonly string[] = [],
): Map<string, string> {
  const taken = new Set(reserved);
  const names = new Map<string, string>();
  for (const source of sources) {
    if (names.has(source)) continue;
    const base = sanitise(source);
    const claims = (name: string) => [name, ...suffixes.map((suffix) => `${name}${suffix}`)];
    let name = base;
    for (let n = 2; claims(name).some((claimed) => taken.has(claimed)); n++) name = `${base}_${n}`;
    for (const claimed of claims(name)) taken.add(claimed);
    names.set(source, name);
  }
  return names;
}
