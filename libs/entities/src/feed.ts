import { checkQueryTypes, parseFeedQuery, type FeedQuery, type RawQuery } from '@entia/domain';
import { schemaOf } from './definitions';
import type { Tenant } from './tenant';

/**
 * The query of a change feed (issue 18): the list syntax's filters and `props`, checked against the
 * database's definitions like a list's (a filter of the wrong type for its property is 400).
 */
export async function feedQueryOf(deps: Parameters<typeof schemaOf>[0], tenant: Tenant, raw: RawQuery): Promise<FeedQuery> {
  const query = parseFeedQuery(raw);
  if (query.filters.length > 0) {
    checkQueryTypes({ filters: query.filters, sort: [], limit: 0, skip: 0, terms: [] }, (await schemaOf(deps, tenant)).propertyTypes(undefined));
  }
  return query;
}
