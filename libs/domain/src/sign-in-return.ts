/**
 * Where a provider sign-in started the way Entu's web client starts it (`GET /api/auth/<provider>
 * ?next=<url>`) may send the browser back with its one-time key. `next` carries
 * the app's own query (`?invite=…&key=`), so it is compared with the allowed return addresses
 * (OIDC_REDIRECT_URIS) by origin and path, not exactly as the code flow's `redirect` is; anything
 * else would be an open redirect handing a sign-in key to whoever wrote the link.
 */
export function returnAddressProblem(next: string, allowed: readonly string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    return '`next` must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return '`next` must be an http(s) URL';
  if (url.username !== '' || url.password !== '') return '`next` must not carry credentials';
  if (url.hash !== '' || next.includes('#')) return '`next` must not carry a fragment';
  const place = `${url.origin}${url.pathname}`;
  const known = allowed.some((address) => {
    const allowedUrl = new URL(address);
    return `${allowedUrl.origin}${allowedUrl.pathname}` === place;
  });
  return known ? undefined : "`next` must be at one of the addresses in OIDC_REDIRECT_URIS (same origin and path; the query is the app's)";
}

/**
 * `next` with the one-time key added as Entu's client reads it: a `next` ending in `=` (Entu's
 * `…/auth/callback?key=`) gets the key appended; any other gets a `key` parameter.
 */
export function withSignInKey(next: string, key: string): string {
  if (next.endsWith('=')) return `${next}${encodeURIComponent(key)}`;
  const url = new URL(next);
  url.searchParams.set('key', key);
  return url.href;
}

/** `next` with a refusal's reason, so that the app can say why instead of presenting no key. */
export function withSignInError(next: string, error: string, description: string): string {
  const url = new URL(next);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  return url.href;
}
