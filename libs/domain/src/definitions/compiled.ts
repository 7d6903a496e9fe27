import { DomainError } from '../errors';
import { formulasOf, type ParsedFormula } from '../formula/apply';
import { parseFormula } from '../formula/parse';
import type { ListQuery } from '../query/ast';
import { parseReferenceQuery } from '../query/parse';
import type { PropertyDefinition } from './definition';
import { searchableOf } from './from-entity';

/**
 * A type's definitions with what every write, refresh and reference check derives from them,
 * worked out once per schema (the schema cache keeps it until a definition changes).
 */
export interface CompiledType {
  /** The user property definitions, by name. */
  definitions: ReadonlyMap<string, PropertyDefinition>;
  /** Their formulas, parsed. */
  formulas: readonly ParsedFormula[];
  /** Their `reference_query`s, parsed, by property name. */
  referenceQueries: ReadonlyMap<string, ListQuery>;
  /** The properties `q` searches. */
  searchable: ReadonlySet<string>;
}

/** What `parse` gives, or undefined when the text does not parse. */
function parsed<T>(parse: () => T): T | undefined {
  try {
    return parse();
  } catch (error) {
    if (error instanceof DomainError) return undefined;
    throw error;
  }
}

/**
 * Compiles a type's definitions. Definitions are checked when written (`checkDefinition`), so a
 * formula or `reference_query` that does not parse is only seen in data written around the API: it
 * is left out here (not computed, not checked) rather than failing every write of the database.
 */
export function compileType(definitions: ReadonlyMap<string, PropertyDefinition>): CompiledType {
  const parses = (definition: PropertyDefinition) => definition.formula === undefined || parsed(() => parseFormula(definition.formula!)) !== undefined;
  const referenceQueries = new Map<string, ListQuery>();
  for (const definition of definitions.values()) {
    const query = definition.referenceQuery === undefined ? undefined : parsed(() => parseReferenceQuery(definition.referenceQuery!));
    if (query) referenceQueries.set(definition.name, query);
  }
  return {
    definitions,
    formulas: formulasOf(new Map([...definitions].filter(([, definition]) => parses(definition)))),
    referenceQueries,
    searchable: searchableOf(definitions),
  };
}
