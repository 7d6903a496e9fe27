export { createRedis, type RedisRole } from './redis';
export { DEFAULT_JOB_OPTIONS, QUEUE_NAME, type JobData, type JobName, type JobResult, type EntityChanged, type JobTypes, type RebuildProgress } from './queue';
export { JobProducer, type JobState, type JobStatus } from './producer';
export { Generations } from './generations';
