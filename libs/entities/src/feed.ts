import { parseFeedQuery, type FeedQuery, type RawQuery } from '@entia/domain';
import type { schemaOf } from './definitions';
import { checkAgainstSchema } from './list';
import type { Tenant } from './tenant';

/**
 * The query of a change feed: the list syntax's filters and `props`, checked against the
 * database's definitions as a list's are (a filter of the wrong type for its property is 400).
 */
export async function feedQueryOf(deps: Parameters<typeof schemaOf>[0], tenant: Tenant, raw: RawQuery): Promise<FeedQuery> {
  const query = parseFeedQuery(raw);
  await checkAgainstSchema(deps, tenant, { filters: query.filters, sort: [] });
  return query;
}
