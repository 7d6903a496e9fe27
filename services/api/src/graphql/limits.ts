import { GraphQLError, Kind, parse, type ASTVisitor, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';
import { createComplexityRule, fieldExtensionsEstimator, simpleEstimator } from 'graphql-query-complexity';

/**
 * Bounds on one GraphQL document (docs/decisions.md "GraphQL"): a request's cost grows with what
 * it asks for, so what it may ask for is bounded before anything runs. The page size of every list
 * is the REST one (MAX_LIMIT, checked by `listQueryOf` as by `parseListQuery`), and the body by BODY_LIMIT_BYTES.
 */
export const GRAPHQL_LIMITS = {
  /** Characters in the query text (the route's schema refuses a longer one with a 400 problem). */
  maxQueryLength: 20_000,
  /** Tokens the parser reads before it gives up: bounds a document of many tiny parts. */
  maxTokens: 5_000,
  /** Nesting of selections, fragments followed: `book { author { books { … } } }`. */
  maxDepth: 10,
  /** Aliased fields in a document: each alias can repeat a costly field. */
  maxAliases: 30,
  /** Estimated cost: 1 per field, a list field its page size times its selection. */
  maxComplexity: 20_000,
} as const;

/** Parses within the token bound; a longer document is a syntax error, as GraphQL answers one. */
export function boundedParse(source: string | { body: string }): DocumentNode {
  return parse(source as string, { maxTokens: GRAPHQL_LIMITS.maxTokens });
}

function refusal(message: string, code: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'invalid', limit: code } });
}

/** Refuses a document nested deeper than `max`, counting through fragment spreads (cycles are refused by graphql-js itself). */
export function depthLimit(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of context.getDocument().definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    const depthOf = (set: SelectionSetNode | undefined, seen: Set<string>): number => {
      if (!set) return 0;
      let deepest = 0;
      for (const selection of set.selections) {
        // Introspection (`__schema`, `__type`) walks the schema, not the data: its depth is bounded
        // by the schema and the token limit, and GraphQL tools nest `ofType` deeper than 10.
        if (selection.kind === Kind.FIELD && selection.name.value.startsWith('__')) continue;
        if (selection.kind === Kind.FIELD) deepest = Math.max(deepest, selection.selectionSet ? 1 + depthOf(selection.selectionSet, seen) : 0);
        else if (selection.kind === Kind.INLINE_FRAGMENT) deepest = Math.max(deepest, depthOf(selection.selectionSet, seen));
        else if (!seen.has(selection.name.value)) {
          deepest = Math.max(deepest, depthOf(fragments.get(selection.name.value)?.selectionSet, new Set([...seen, selection.name.value])));
        }
        if (deepest > max) return deepest;
      }
      return deepest;
    };
    return {
      OperationDefinition(operation) {
        if (depthOf(operation.selectionSet, new Set()) > max) context.reportError(refusal(`The query is nested deeper than ${max} levels.`, 'depth'));
      },
    };
  };
}

/** Refuses a document with more than `max` aliases. */
export function aliasLimit(max: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let aliases = 0;
    return {
      Field(field) {
        if (field.alias && ++aliases === max + 1) context.reportError(refusal(`The query has more than ${max} aliases.`, 'aliases'));
      },
    };
  };
}

/** The limit rules, given the operation's variables (a page size may be one). */
export function limitRules(variables: Record<string, unknown> | undefined): ValidationRule[] {
  return [
    depthLimit(GRAPHQL_LIMITS.maxDepth),
    aliasLimit(GRAPHQL_LIMITS.maxAliases),
    createComplexityRule({
      maximumComplexity: GRAPHQL_LIMITS.maxComplexity,
      variables: variables ?? {},
      estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
      createError: (max, actual) => refusal(`The query costs ${actual}, more than ${max}: ask for smaller pages or fewer fields.`, 'complexity'),
    }),
  ];
}
