export { EntiaClient, type ClientOptions, type RequestOptions } from './client';
export { EntiaDatabase, DEFAULT_PAGE_SIZE, MAX_GET_PATH, type TypeOptions } from './database';
export type { DuplicateOptions, GraphqlResult } from './database';
export type { FileDownload } from './download';
export { EntiaError, type Problem } from './errors';
export { generateTypes, type GenerateOptions } from './generate';
export { jwtExpiresAt } from './jwt';
export { registerPasskey, signInWithPasskey, type PasskeySignInOptions } from './passkeys';
export type { CallOptions } from './signals';
export { DEFAULT_UPLOAD_ATTEMPTS, UploadError, uploadFile, type FileContent, type FileUpload, type StreamSource, type UploadApi, type UploadOptions } from './upload';
export { DEFAULT_RETRY, KEY_IN_USE, backoffDelay, isRetryableStatus, mayRepeat, type RetryPolicy } from './retry';
export {
  valuesOf,
  type Account,
  type AddedValues,
  type Aggregation,
  type AuthResult,
  type Change,
  type ChangeEvent,
  type DatabaseSchema,
  type Deleted,
  type Entity,
  type EntityList,
  type EntityQuery,
  type History,
  type PropertyDescription,
  type StoredValue,
  type Thumbnail,
  type TypeDescription,
  type UploadTarget,
  type Value,
  type ValueData,
  type ValueInput,
  type InputKind,
  type ScalarKind,
  type ValueFieldDescription,
  type ValueType,
  type WriteResult,
} from './types';
export { subscribe, type ChangeNotice, type SubscribeOptions, type Subscription } from './changes';
export type { DefinitionInput } from './typed/define';
export { EntityType, rawOf, type GetOptions, type Page, type TypedChangeEvent, type UploadInput } from './typed/entity-type';
export { InputError, UnknownPropertyError, UnknownTypeError } from './typed/values';
export { DefinitionMismatchError } from './typed/define';
export type {
  AddInput,
  AnySchema,
  BooleanOps,
  Condition,
  CreateInput,
  EntityObject,
  FileInfo,
  FileKeys,
  FileOps,
  ListParams,
  PropertyShape,
  RangeOps,
  ReadProperty,
  ReadScalar,
  ReferenceOps,
  SchemaShape,
  Selected,
  Sharing,
  SortKey,
  StringOps,
  SystemFields,
  SystemInput,
  TypeShape,
  UpdateInput,
  Where,
  WhereOperator,
  WriteProperty,
  WriteScalar,
} from './typed/shape';
export { OidcSignInError, completeOidcSignIn, oidcSignInUrl, signInWithOidc, type OidcSignInOptions } from './oidc';
