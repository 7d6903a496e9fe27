export { failureReason, probe, type Check, type Readiness } from './probe';
export { DEPENDENCY_UP_METRIC, measureDependencies } from './dependency-metric';
export { FIRST_CONTACT, retryDelay, retryUntilDone, type RetryOptions, type RetrySchedule } from './retry';
export { stuckParts, type Stuck } from './liveness';
export { failureChanges, type FailureLog } from './failure-log';
