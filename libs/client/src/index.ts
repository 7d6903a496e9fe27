export { EntiaClient, type ClientOptions, type JobStatus } from './client';
export { EntiaDatabase } from './database';
export { EntiaError, type Problem } from './errors';
export { jwtExpiresAt } from './jwt';
export { DEFAULT_UPLOAD_ATTEMPTS, UploadError, uploadFile, type FileUpload, type UploadApi, type UploadOptions } from './upload';
export { DEFAULT_RETRY, backoffDelay, isRetryableStatus, type RetryPolicy } from './retry';
export {
  valuesOf,
  type Account,
  type AuthResult,
  type Deleted,
  type Entity,
  type EntityList,
  type EntityQuery,
  type UploadTarget,
  type Value,
  type ValueInput,
  type WriteResult,
} from './types';
