export { EntiaClient, type ClientOptions, type RequestOptions } from './client';
export { EntiaDatabase, MAX_GET_PATH } from './database';
export type { DuplicateOptions, GraphqlResult } from './database';
export { EntiaError, type Problem } from './errors';
export { jwtExpiresAt } from './jwt';
export { DEFAULT_UPLOAD_ATTEMPTS, UploadError, uploadFile, type FileUpload, type UploadApi, type UploadOptions } from './upload';
export { DEFAULT_RETRY, KEY_IN_USE, backoffDelay, isRetryableStatus, mayRepeat, type RetryPolicy } from './retry';
export {
  valuesOf,
  type Account,
  type Aggregation,
  type AuthResult,
  type Change,
  type ChangeEvent,
  type Deleted,
  type Entity,
  type EntityList,
  type EntityQuery,
  type History,
  type Thumbnail,
  type UploadTarget,
  type Value,
  type ValueInput,
  type WriteResult,
} from './types';
export { subscribe, type ChangeNotice, type SubscribeOptions, type Subscription } from './changes';
