import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

export const TOKEN_LIFETIME_SECONDS = 48 * 3600;

/** What a token grants: a person in each of some databases, through one API key. */
export interface Grant {
  /** database name → person id; read it with `personIn`, never by indexing. */
  accounts: Record<string, string>;
  /** Hash of the API key it was exchanged for, so revoking the key ends the token. */
  kid: string;
}

const ALGORITHM = 'HS256';
const AUDIENCE = 'entia';

/**
 * The signing key, made once per process. Given the secret as a string, jsonwebtoken first tries
 * to parse it as a PEM public key on every call and only then falls back to an HMAC key: that
 * failed parse was half the API's CPU time on a cached GET (measured with the load benchmark's
 * `--profile`).
 */
export function tokenKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'));
}

export function signToken(grant: Grant, key: KeyObject): string {
  return jwt.sign({ accounts: grant.accounts }, key, {
    algorithm: ALGORITHM,
    audience: AUDIENCE,
    expiresIn: TOKEN_LIFETIME_SECONDS,
    keyid: grant.kid,
  });
}

/** The grant of a valid token; undefined for a forged, expired, malformed or foreign one. */
export function verifyToken(token: string, key: KeyObject): Grant | undefined {
  try {
    const decoded = jwt.verify(token, key, { algorithms: [ALGORITHM], audience: AUDIENCE, complete: true });
    const payload = decoded.payload as { accounts?: unknown };
    const kid = decoded.header.kid;
    if (typeof kid !== 'string' || !isAccounts(payload.accounts)) return undefined;
    return { accounts: payload.accounts, kid };
  } catch {
    return undefined;
  }
}

/**
 * The person `grant` names in database `db`, or undefined. An own-property check: `accounts[db]`
 * would find `Object.prototype.constructor` for a database named `constructor`, and so let any
 * token into it.
 */
export function personIn(grant: Grant, db: string): string | undefined {
  return Object.hasOwn(grant.accounts, db) ? grant.accounts[db] : undefined;
}

function isAccounts(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string');
}
