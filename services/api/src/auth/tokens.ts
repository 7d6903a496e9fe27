import jwt from 'jsonwebtoken';

export const TOKEN_LIFETIME_SECONDS = 48 * 3600;

/** What a token grants: a person in each of some databases, through one API key. */
export interface Grant {
  /** database name → person id */
  accounts: Record<string, string>;
  /** Hash of the API key it was exchanged for, so revoking the key ends the token. */
  kid: string;
}

const ALGORITHM = 'HS256';
const AUDIENCE = 'entia';

export function signToken(grant: Grant, secret: string): string {
  return jwt.sign({ accounts: grant.accounts }, secret, {
    algorithm: ALGORITHM,
    audience: AUDIENCE,
    expiresIn: TOKEN_LIFETIME_SECONDS,
    keyid: grant.kid,
  });
}

/** The grant of a valid token; undefined for a forged, expired, malformed or foreign one. */
export function verifyToken(token: string, secret: string): Grant | undefined {
  try {
    const decoded = jwt.verify(token, secret, { algorithms: [ALGORITHM], audience: AUDIENCE, complete: true });
    const payload = decoded.payload as { accounts?: unknown };
    const kid = decoded.header.kid;
    if (typeof kid !== 'string' || !isAccounts(payload.accounts)) return undefined;
    return { accounts: payload.accounts, kid };
  } catch {
    return undefined;
  }
}

function isAccounts(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string');
}
