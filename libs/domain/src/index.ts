export {
  ANY_PROPERTY_NAME_PATTERN,
  ANY_PROPERTY_NAME_SOURCE,
  DATABASE_NAME_PATTERN,
  DATABASE_SPELLING_PATTERN,
  OBJECT_ID_PATTERN,
  PROPERTY_NAME_PATTERN,
  isAnyPropertyName,
  isDatabaseName,
  isDatabaseSpelling,
  isObjectId,
  isPropertyName,
  propertyListPattern,
} from './names';
export { DatabaseNameSchema, ObjectIdSchema, PropertyNameSchema } from './wire/identifiers';
export { StoredValueSchema, UploadTargetSchema, ValueInputSchema, ValueSchema } from './wire/value';
export { DeletedSchema, EntityListSchema, EntitySchema, WriteResultSchema, type EntityShape } from './wire/entity';
export { FieldErrorSchema, ProblemSchema } from './wire/problem';
export { DomainError, MAX_ERROR_TEXT, MAX_FIELD_ERRORS, boundedErrors, clipText, invalid, forbidden, notFound, type DomainErrorKind, type FieldError } from './errors';
export { first, newProperties, referencesOf, type Entity, type Properties } from './entity';
export { VALUE_TYPES, VALUE_FIELDS, fieldsOf, isValueType, type Value, type ValueData, type ValueField, type ValueType } from './values/types';
export { DEFAULT_LIMITS, checkValue, isCalendarDate, normaliseDatetime, type ValueLimits, type ValueShape } from './values/rules';
export type { PropertyDefinition } from './definitions/definition';
export { SECRET_SHOWN, SYSTEM_DEFINITIONS, isSecretProperty, isSystemProperty } from './definitions/system';
export { definitionOf } from './definitions/lookup';
export { checkDefinition, checkSiblings, definitionFrom, definitionMap, searchableOf } from './definitions/from-entity';
export { READ_ACCESS_PROPERTIES, RIGHTS, RIGHT_PROPERTIES, SHARING, callerTags, canRead, hasRight, ownersCanRead, readAccess, rightOf, sharingOf, type Caller, type Right, type Sharing } from './rights';
export { applyWrite, assertOwned, type ReferenceCheck, type ValueInput, type WriteContext, type WriteResult } from './write';
export { findValue, removeValue } from './remove';
export { MAX_API_KEYS, MAX_KEY_SPONSORS, keyIsLive, keySponsors, type KeyGenerator } from './keys';
export { checkReferences, isSchemaType, typeOf, type MetaTypes } from './references';
export { groupByProperty, presentEntity, presentValue } from './present';
export { bootstrapDatabase, type Bootstrap } from './bootstrap';
export { OPERATORS, type Filter, type FilterField, type ListQuery, type Operator, type Scalar, type SortKey } from './query/ast';
export { DEFAULT_LIMIT, FILTER_FIELDS, FILTER_KEY_PATTERN, MAX_IN, MAX_LIMIT, MAX_REGEX, MAX_SKIP, MAX_TERMS, OPERATORS_OF, parseListQuery, parseReferenceQuery, rawQueryOf, type RawQuery } from './query/parse';
export { checkQueryTypes } from './query/check';
export { MAX_PREFIX, prefixes, searchTerms, words } from './search/tokens';
export { MAX_SEARCH_WORDS, searchIndex, sortKeys, type SortKeys, type SortScalar } from './search/derive';
export { FORMULA_FUNCTIONS, MAX_FORMULA_LENGTH, MAX_FORMULA_STRING, MAX_FORMULA_TOKENS, MAX_FORMULAS_PER_TYPE, type Formula, type FormulaFunction, type FormulaNode, type FormulaPath, type FormulaValue } from './formula/ast';
export { parseFormula } from './formula/parse';
export { evaluateFormula, formulaValueData, formulaValueType, formulaValuesOf, type FormulaContext } from './formula/evaluate';
export { formulaDependencies, type FormulaDependencies } from './formula/dependencies';
export { pathValues } from './formula/resolve';
export { computeFormulas, computeOwnFormulas, formulasOf, type FormulaRun } from './formula/apply';
export { changedProperties, onlyRelabelled } from './derived/changes';
export { describeChange, type EntityChanged } from './derived/describe';
export { dependentsOf, type Dependents, type EntityChange } from './derived/dependents';
export { inheritRights, inheritsRights } from './derived/inherit';
export { dropReferencesTo, labelOf, labelReferences } from './derived/labels';
export { MAX_ATTRIBUTE_STRING, attributeValue, attributeValues, isIndexedAttribute } from './search/attribute-values';
