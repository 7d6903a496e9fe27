export { ANY_PROPERTY_NAME_PATTERN, ANY_PROPERTY_NAME_SOURCE, DATABASE_NAME_PATTERN, DATABASE_NAME_SOURCE, DATABASE_SPELLING_PATTERN, OBJECT_ID_PATTERN, PROPERTY_NAME_PATTERN, isAnyPropertyName, isDatabaseName, isDatabaseSpelling, isObjectId, isPropertyName, propertyListPattern } from './names';
export { DatabaseNameSchema, ObjectIdSchema, PropertyNameSchema } from './wire/identifiers';
export { StoredValueSchema, UploadTargetSchema, ValueInputSchema, ValueSchema } from './wire/value';
export { AddedValuesSchema, DeletedSchema, EntityListSchema, EntitySchema, GroupRowSchema, GroupedListSchema, GroupedValueSchema, WriteResultSchema, type EntityShape } from './wire/entity';
export { FieldErrorSchema, ProblemSchema } from './wire/problem';
export { AccountSchema, AuthResultSchema } from './wire/auth';
export { ChangeSchema, HistorySchema } from './wire/history';
export { DatabaseSchemaSchema, PropertyDescriptionSchema, TypeDescriptionSchema, type DatabaseSchema, type PropertyDescription, type TypeDescription } from './wire/schema';
export { DomainError, MAX_ERROR_TEXT, MAX_FIELD_ERRORS, boundedErrors, clipText, conflict, invalid, forbidden, notFound, unauthenticated, type DomainErrorKind, type FieldError } from './errors';
export { first, isFileValue, newProperties, referencesOf, type Entity, type Properties } from './entity';
export { VALUE_TYPES, VALUE_FIELDS, fieldsOf, isValueType, type Value, type ValueData, type ValueField, type ValueType } from './values/types';
export { DEFAULT_LIMITS, checkValue, type ValueLimits, type ValueShape } from './values/rules';
export { isCalendarDate } from './values/date';
export { normaliseDatetime } from './values/datetime';
export { DEFINITION_OPTIONS, FIELD_DESCRIPTORS, QUERY_FIELD_DESCRIPTORS, VALUE_DESCRIPTORS, descriptorOf, fieldDescriptorOf, inputOf, type DefinitionOptionKey, type QueryField } from './values/registry';
export {
  INPUT_KINDS,
  ORDERED_OPERATORS,
  SCALAR_KINDS,
  TEXT_OPERATORS,
  defineField,
  defineOption,
  defineValueType,
  isRefusal,
  refuse,
  type CheckContext,
  type DefinitionOption,
  type FieldDescriptor,
  type FormulaResult,
  type InputKind,
  type Refusal,
  type ScalarKind,
  type StorageForm,
  type ValueDescriptor,
} from './values/descriptor';
export type { PropertyDefinition } from './definitions/definition';
export { COMPUTED_PROPERTIES, SECRET_SHOWN, SYSTEM_DEFINITIONS, isComputedProperty, isSecretProperty, isSystemProperty } from './definitions/system';
export { definitionOf } from './definitions/lookup';
export { checkDefinition, checkSiblings, definitionFrom, definitionMap, searchableOf } from './definitions/from-entity';
export { sharedTypeNames, typeNameTaken, typeNamed, type SharedTypeName } from './definitions/type-names';
export { checkPlacement, definitionParent } from './definitions/placement';
export { compileType, type CompiledType } from './definitions/compiled';
export { describeDefinition, describeSchema } from './definitions/describe';
export { DENIAL_PROPERTY, PERSON_LIST_PROPERTIES, READ_ACCESS_PROPERTIES, RIGHTS, RIGHT_PROPERTIES, SHARING, holdersOf, isPersonList, assertDatabaseOwner, assertMayDelete, callerTags, canRead, hasRight, mayAddress, ownersCanRead, readAccess, rightOf, sharingOf, type Caller, type Right, type Sharing } from './rights';
export { applyWrite, assertOwned, isMandatory, type ReferenceCheck, type ValueInput, type WriteContext, type WriteResult } from './write';
export { findValue, removeValue } from './remove';
export {
  CREDENTIAL_PROPERTIES,
  CredentialTaken,
  MAX_CREDENTIALS,
  identityValue,
  isCredentialProperty,
  issuerUrlProblem,
  parseIdentity,
  type CredentialKind,
  type CredentialProperty,
  type Identity,
  type NewCredential,
  type VerifiedCredential,
} from './credentials';
export { MAX_KEY_SPONSORS, keyIsLive, keySponsors, type KeyGenerator } from './keys';
export { checkReferences, isSchemaType, typeOf, type MetaTypes } from './references';
export { groupByProperty, presentEntity, presentValue } from './present';
export { bootstrapDatabase, type Bootstrap } from './bootstrap';
export { PRESENCE_FIELD, type FieldFilter, type Filter, type FilterField, type FilterOf, type GroupKey, type ListQuery, type PresenceFilter, type SortKey } from './query/ast';
export { OPERATORS, OPERATOR_TABLE, filterKeyOf, type OperandKind, type OperandOf, type Operator, type OperatorSpec, type Scalar } from './query/operators';
export { readFilter, type FilterTarget, type WrittenOperand } from './query/filter';
export { DEFAULT_LIMIT, FILTER_FIELDS, FILTER_KEY_PATTERN, MAX_IN, MAX_LIMIT, MAX_REGEX, MAX_SKIP, MAX_TERMS, OPERATORS_OF, listQueryOf, parseListQuery, parseReferenceQuery, rawQueryOf, type ListParts, type RawQuery } from './query/parse';
export { checkQueryTypes } from './query/check';
export { MAX_GROUPS, MAX_GROUP_BYTES, MAX_GROUP_KEYS, groupRows, groupedProperties, parseGroup, parseGroupSort, type FoundGroup, type GroupedProperty, type GroupedValue } from './query/group';
export { MAX_PROPS, parseProps, selectedProperties, selectionOf, type Selection } from './query/props';
export { PARENT_RIGHT_PROPERTIES, shownFrom, withShownRights } from './rights-shown';
export { MAX_CURSOR_LENGTH, decodeCursor, encodeCursor, positionOf, sortEnd, sortSpec, type CursorPosition, type CursorValue } from './query/cursor';
export { matchesFilter, matchesFilters } from './query/match';
export { CACHE_POLICIES, boundOf, boundedCache, type BoundedCache, type CacheBound, type CacheName, type CacheOptions, type CachePolicy } from './caches';
export { conditionOf, type FilterCondition } from './query/cumulative';
export { MAX_PREFIX, prefixes, searchTerms, words } from './search/tokens';
export { MAX_SEARCH_WORDS, searchIndex, sortKeys, type SortKeys, type SortScalar } from './search/derive';
export { FORMULA_FUNCTIONS, MAX_FORMULA_LENGTH, MAX_FORMULA_STRING, MAX_FORMULA_TOKENS, MAX_FORMULAS_PER_TYPE, type Formula, type FormulaFunction, type FormulaNode, type FormulaPath, type FormulaValue } from './formula/ast';
export { parseFormula } from './formula/parse';
export { evaluateFormula, formulaValueData, formulaValueType, formulaValuesOf, type FormulaContext } from './formula/evaluate';
export { formulaDependencies, type FormulaDependencies } from './formula/dependencies';
export { pathValues } from './formula/resolve';
export { computeFormulas, formulasOf, type FormulaRun, type ParsedFormula } from './formula/apply';
export { changedProperties, onlyRelabelled } from './derived/changes';
export { outgoingReferences, withChanged, withReferences, type ChangedInput } from './derived/computed';
export { describeChange, type EntityChanged } from './derived/describe';
export { dependentsOf, type Dependents, type EntityChange } from './derived/dependents';
export { needsOwnRefresh, needsSettling, readersOf, type SchemaView } from './derived/settling';
export { indexOf, indexed, type EntityIndex, type StoredEntity } from './stored';
export { effectsOf, materialise, type Effect, type EntityReads, type Materialised, type MaterialiseInput } from './materialise';
export { inheritRights, inheritsRights } from './derived/inherit';
export { dropReferencesTo, labelOf, labelReferences } from './derived/labels';
export { MAX_ATTRIBUTE_STRING, attributeValue, attributeValues, isIndexedAttribute } from './search/attribute-values';
export { unsearchableWarning, type SearchScope } from './search/unsearchable';
export { CREATED, DELETED, changesOf, mayReadGone, parseInstant, propertiesAt, type Author, type Change } from './history';
export { MAX_DUPLICATES, NOT_COPIED, checkDuplicate, copiedValues, copyDefinitions, type CopiedValue, type DuplicateRequest } from './duplicate';
export { MAX_SOURCE_PIXELS, MAX_SOURCE_SIDE, PHOTO_PROPERTY, THUMBNAIL_FORMAT, THUMBNAIL_MIME, THUMBNAIL_SIZES, THUMBNAIL_SOURCE_FORMATS, THUMBNAIL_SOURCE_TYPES, assertThumbnailSource, assertThumbnailSourceType, centredSquare, parseThumbnailSize, thumbnailFilename, thumbnailKey, thumbnailKeys, unthumbnailable, type Region, type SourceImage, type ThumbnailSize } from './thumbnails';
export { ThumbnailSchema } from './wire/thumbnail';
export { INLINE_TYPES, displayOf, type FileDisplay } from './file-display';
export { statisticsOf, type DatabaseStatistics, type UsageFigures } from './statistics';
export { DatabaseStatisticsSchema } from './wire/statistics';
export { graphqlTypeName, sanitiseGraphqlName, uniqueGraphqlNames } from './graphql-names';
export { CHANGE_KINDS, MAX_SNAPSHOT_BYTES, MAX_SNAPSHOT_STRING, changeRecordOf, snapshotOf, type ChangeKind, type ChangeRecord, type Snapshot } from './changes/record';
export { deliveryOf, type Delivery } from './changes/delivery';
export { ChangeEventSchema } from './wire/change-event';
export { changeEventOf, missingProps, type ChangeEvent } from './changes/event';
export { parseFeedFilter, parseFeedQuery, type FeedQuery } from './changes/feed-query';
export {
  MAX_BACKOFF_MS,
  MAX_DELIVERY_ERROR,
  MAX_WEBHOOK_URL,
  MIN_WEBHOOK_SECRET,
  answerProblem,
  assertMayManageWebhooks,
  backoffDelay,
  checkWebhook,
  deliveryErrorOf,
  deliveryStateAfter,
  isWebhookEntity,
  webhookDeliveryOf,
  webhookOf,
  webhookUrlProblem,
  type AttemptResult,
  type DeliveryState,
  type RetryPolicy,
  type Webhook,
} from './webhooks';
export { WebhookDeliveriesSchema, WebhookDeliverySchema } from './wire/webhook-delivery';
export { SIGN_IN_SETTINGS, personsWithEmail, selfRegisteredPerson, signInSettings, type ProviderProfile, type SignInSettings } from './sign-in-settings';
export { schemaVerdict, type SchemaVerdict } from './schema-version';
export { SIGN_IN_CEILING_SECONDS, TOKEN_LIFETIME_SECONDS, checkRefreshable } from './token-refresh';
export { returnAddressProblem, withSignInError, withSignInKey } from './sign-in-return';
export { fromEntuSpelling, inEntuSpelling, isEntuInvitation } from './entu-spelling';
export {
  INVITATION_AUDIENCE,
  INVITATION_SECONDS,
  assertMayInvite,
  checkInvitationClaims,
  invitationClaims,
  invitationLink,
  inviteeAddress,
  type InvitationClaims,
} from './invitations';
export { MAX_COUNTER_STEP, numbered, planCounters, type CounterRequest } from './counters';
