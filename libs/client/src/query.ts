import type { EntityQuery } from './types';

/**
 * `?a=1&b=x,y` from a query object. Keys go through verbatim (percent-encoded only where they must
 * be), so new filters need no client change. Each list item is encoded on its own and the items
 * joined by a literal comma, the separator the API splits on.
 */
export function queryString(query: EntityQuery): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const encoded = Array.isArray(value) ? value.map(encodeURIComponent).join(',') : encodeURIComponent(String(value));
    pairs.push(`${encodeURIComponent(key)}=${encoded}`);
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}
