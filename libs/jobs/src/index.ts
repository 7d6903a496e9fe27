export { createRedis, pingRedis, redisConnectError, redisStuck, whenRedisReady, type RedisRole } from './redis';
export { RedisBreaker, RedisUnavailableError, isRedisUnavailable, type BreakerOptions } from './breaker';
export { DEFAULT_JOB_OPTIONS, QUEUE_NAME, type JobData, type JobName, type JobResult, type JobTypes, type RebuildProgress } from './queue';
export { JobProducer, RANDOM_JOB_ID_SOURCE, randomJobId, type JobState, type JobStatus } from './producer';
export { Generations } from './generations';
export { ExpiringCache } from './expiring-cache';
export { ChangeLog, comparePositions, type LogEntry, type Publishable, type Resume, type RetentionSettings } from './change-log';
export { ChangeLogGroup, GroupMissing } from './change-log-group';
export { checkEvictionPolicy, checkRedisRoles, judgePolicy, type PolicyFinding, type RedisRoleOf } from './redis-policy';
