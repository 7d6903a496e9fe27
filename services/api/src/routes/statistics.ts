import { DatabaseStatisticsSchema, type UsageFigures } from '@entia/domain';
import { DatabaseStatisticsReader, STATISTICS_SECONDS } from '@entia/entities';
import { ExpiringCache } from '@entia/jobs';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { DbPath } from './schemas';

/** No parameters: one given is a 400, so a client never takes the whole answer for an answer to its question. */
const NoQuery = Type.Object({}, { additionalProperties: false });

/** How much longer than a request may wait its counting may take, going on after the request: a large database's figures are still counted. */
const COUNT_PER_WAIT = 12;

/**
 * The database's home: `GET /api/{db}`, and `GET /api/{db}/` as Entu's client
 * also asks it (the router does not tell a trailing slash apart). Figures are kept on the cache's
 * Redis, which may lose them: they are counted again then.
 */
export function statisticsRoutes(deps: Deps): Route[] {
  const figures = new ExpiringCache<UsageFigures>(deps.cacheBreaker, deps.config.REDIS_PREFIX, 'stats', STATISTICS_SECONDS);
  const waitMs = deps.config.MONGODB_TIMEOUT_MS;
  const statistics = new DatabaseStatisticsReader(deps, figures, { waitMs, countMs: waitMs * COUNT_PER_WAIT });
  return [
    defineRoute({
      method: 'get',
      path: '/api/{db}',
      operationId: 'getDatabaseStatistics',
      summary:
        'The database\'s statistics in the shape Entu\'s web client reads (also at `/api/{db}/`): entities, values and file bytes in use and deleted, ' +
        'the database\'s size, its name as `organization`. Entia has no quotas (`limit` null), no AI (`tokens.usage` 0) and no request counts ' +
        `(\`requests.usage\` null). For the database's members. The figures are counted at most once every ${STATISTICS_SECONDS} s, so they may be up to that old (\`computedAt\`; ` +
        'on a database whose counting takes longer than 6 s, ten times as long as it took). A count that outlasts MONGODB_TIMEOUT_MS is 503 with `Retry-After`; it goes on, and a later request finds it.',
      tags: ['entities'],
      security: 'required',
      params: DbPath,
      query: NoQuery,
      responses: {
        200: { description: 'The statistics.', schema: DatabaseStatisticsSchema },
        400: { description: 'A query parameter was given; this route takes none.' },
        401: { description: 'Not signed in (or an expired, forged or revoked token).' },
        403: { description: 'The token does not grant this database.' },
        404: { description: 'No such database.' },
        503: { description: 'The figures are being counted (or the database is away); try again after `Retry-After`.' },
      },
      handler: async ({ params, tenant, res }) => {
        res.set('Cache-Control', 'no-store').json(await statistics.of(tenant));
      },
    }),
  ];
}
