import { invalid } from '../errors';
import type { Filter } from '../query/ast';
import { LIST_ONLY_PARAMETERS, parseListQuery, type RawQuery } from '../query/parse';

/** What a change feed or a webhook selects: filters of the list syntax, and `props` to add. */
export interface FeedQuery {
  filters: Filter[];
  props?: string[];
}


/** A feed's query parameters: those of a list (`parseListQuery`) but for the list-only ones, refused (400). */
export function parseFeedQuery(raw: RawQuery): FeedQuery {
  // A feed has no pages, order, count or text search: changes arrive as they happen.
  const refused = LIST_ONLY_PARAMETERS.filter((name) => raw[name] !== undefined).map((parameter) => ({ parameter, message: 'a change feed takes filters and props only' }));
  if (refused.length > 0) throw invalid('The query is invalid.', refused);
  const { filters, props } = parseListQuery(raw);
  return { filters, ...(props ? { props } : {}) };
}

/** A filter written as a query string (a webhook's `filter`, `a.string=x&b.number.gte=2`), parsed as a feed's. */
export function parseFeedFilter(text: string): FeedQuery {
  const raw: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = raw[key];
    raw[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return parseFeedQuery(raw);
}
