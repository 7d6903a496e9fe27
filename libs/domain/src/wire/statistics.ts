import { Type } from '@sinclair/typebox';

const count = (description: string) => Type.Integer({ minimum: 0, description });
const noLimit = Type.Null({ description: 'Entia has no quotas: always null (Entu\'s client then draws no limit).' });

/**
 * A database's statistics as `GET /api/{db}` answers them: Entu's shape, every
 * key its web client reads present. Figures are counted at most once a minute per database
 * (`computedAt`), so they may be up to that old (longer on a database slow to count).
 */
export const DatabaseStatisticsSchema = Type.Object({
  organization: Type.Array(
    Type.Object({ string: Type.String(), language: Type.Optional(Type.String()) }),
    { description: 'The `name` values of the database entity (Entu: its organisation), when the caller may read that entity; else empty.' },
  ),
  entities: Type.Object({
    usage: count('Entities (one deleted a moment ago counts until the worker has finished deleting it, usually seconds).'),
    deleted: count('Entities deleted within HISTORY_RETENTION_DAYS: their history is kept that long, then forgotten.'),
    limit: noLimit,
  }),
  properties: Type.Object({
    usage: count('Values the existing entities hold, system ones (`_type`, `_owner`, `_created`…) included.'),
    deleted: count(
      'Values people deleted or replaced, as history remembers them: in existing entities, and in entities deleted within HISTORY_RETENTION_DAYS. ' +
        'The values an entity had when it was deleted are not counted (its deletion is one change), nor what the worker recomputed.',
    ),
  }),
  requests: Type.Object({
    usage: Type.Null({ description: 'Entia does not count requests per database: null, unknown (the rate limit counts per caller and window).' }),
    limit: noLimit,
  }),
  tokens: Type.Object({
    usage: count('AI tokens used this month: Entia has no AI features, so always 0.'),
    limit: noLimit,
  }),
  files: Type.Object({
    usage: count('Bytes of the file values of existing entities, as declared (`filesize`), uploaded or not; thumbnails not counted.'),
    deleted: count('Bytes kept for deleted files: always 0. A deleted file\'s object is removed from storage (by the worker, seconds later).'),
    limit: noLimit,
  }),
  dbSize: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'Bytes the database takes in MongoDB (data and indexes), as the engine reports it (`dbStats`); null when it does not say.',
  }),
  computedAt: Type.String({
    format: 'date-time',
    description: 'When these figures were counted: at most a minute before the answer, or ten times as long as counting took when that was longer than 6 s.',
  }),
});
