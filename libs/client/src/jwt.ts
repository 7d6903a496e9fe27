/**
 * When a JWT expires, in epoch milliseconds, read from its `exp` claim; `undefined` when the token
 * does not say (or is not a JWT). The signature is not checked: the client only uses this to renew
 * before the server starts refusing, and the server remains the judge of validity.
 */
export function jwtExpiresAt(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    const exp = (claims as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
