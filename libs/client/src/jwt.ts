/**
 * When a JWT expires, in epoch milliseconds, read from its `exp` claim; `undefined` when the token
 * does not say (or is not a JWT). The signature is not checked: the client only uses this to renew
 * before the server starts refusing, and the server remains the judge of validity.
 */
export function jwtExpiresAt(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims: unknown = JSON.parse(base64UrlText(payload));
    const exp = (claims as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The UTF-8 text a base64url segment encodes, with what browsers have as well as Node (`atob`,
 * `TextDecoder`): with Node's `Buffer` a browser failed to read `exp`, and took every token as
 * never expiring. Throws on what is not base64url.
 */
function base64UrlText(segment: string): string {
  if (!/^[A-Za-z0-9_-]*$/.test(segment)) throw new Error('not base64url');
  const base64 = segment.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '='));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}
