import type { Static } from '@sinclair/typebox';
import type { Value } from './values/types';
import type { DatabaseStatisticsSchema } from './wire/statistics';

export type DatabaseStatistics = Static<typeof DatabaseStatisticsSchema>;

/** What is counted of a database (libs/store, `DatabaseUsage`): the figures of its statistics. */
export interface UsageFigures {
  /** Entities (with those deleted a moment ago whose deletion the worker has not finished). */
  entities: number;
  /** `_deleted` changes in history: entities deleted within the retention. */
  deletedEntities: number;
  /** Values of the existing entities. */
  values: number;
  /** Values people deleted or replaced, as history has them. */
  deletedValues: number;
  /** Declared bytes of the file values of the existing entities. */
  fileBytes: number;
  /** What the engine says the database takes; undefined when it does not say. */
  sizeBytes: number | undefined;
  /** When they were counted (ISO 8601). */
  at: string;
}

/**
 * The answer of `GET /api/{db}` in Entu's shape from what was counted and the
 * database entity's `name` values the caller may read. What Entia does not have is said plainly:
 * no quotas (`limit: null`), no AI (`tokens.usage: 0`), no request counts (`requests.usage: null`),
 * no bytes kept for deleted files (`files.deleted: 0`).
 */
export function statisticsOf(usage: UsageFigures, names: readonly Value[]): DatabaseStatistics {
  return {
    organization: names.filter((name) => typeof name.string === 'string').map((name) => ({ string: name.string!, ...(name.language ? { language: name.language } : {}) })),
    entities: { usage: usage.entities, deleted: usage.deletedEntities, limit: null },
    properties: { usage: usage.values, deleted: usage.deletedValues },
    requests: { usage: null, limit: null },
    tokens: { usage: 0, limit: null },
    files: { usage: usage.fileBytes, deleted: 0, limit: null },
    dbSize: usage.sizeBytes ?? null,
    computedAt: usage.at,
  };
}
