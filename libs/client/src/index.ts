export { EntiaClient, type ClientOptions, type JobStatus } from './client';
export { EntiaError, type Problem } from './errors';
export { DEFAULT_RETRY, backoffDelay, isRetryableStatus, type RetryPolicy } from './retry';
