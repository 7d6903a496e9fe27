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

/**
 * The same parameters as the body of `POST /api/{db}/entity/query`: each value as the text the
 * query string would carry (list items joined by commas, numbers and booleans written out).
 */
export function queryBody(query: EntityQuery): Record<string, string> {
  // fromEntries defines each key as its own: a key named `__proto__` stays a parameter.
  return Object.fromEntries(
    Object.entries(query).flatMap(([key, value]) => (value === undefined ? [] : [[key, Array.isArray(value) ? value.join(',') : String(value)]])),
  );
}
