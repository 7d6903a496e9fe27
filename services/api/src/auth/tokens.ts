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

/** The grant of a token valid at `now` and when it expires (ms); undefined for a forged, expired, malformed or foreign one. */
function verified(token: string, key: KeyObject, now: number): { grant: Grant; expiresAt: number } | undefined {
  try {
    const decoded = jwt.verify(token, key, { algorithms: [ALGORITHM], audience: AUDIENCE, complete: true, clockTimestamp: Math.floor(now / 1000) });
    const payload = decoded.payload as { accounts?: unknown; exp?: unknown };
    const kid = decoded.header.kid;
    if (typeof kid !== 'string' || !isAccounts(payload.accounts) || typeof payload.exp !== 'number') return undefined;
    return { grant: { accounts: payload.accounts, kid }, expiresAt: payload.exp * 1000 };
  } catch {
    return undefined;
  }
}

/**
 * Verifies tokens, remembering the valid ones it saw until they expire: a client sends the same
 * token with every request for up to 48 h, and what its signature proved cannot change (whether
 * its API key still opens the database is `KeyLiveness`'s, asked every time). Checking it again —
 * base64, two JSON parses, an HMAC — was about 12 µs of CPU per request (issue 21). Bounded: when
 * full it starts afresh. Refused tokens are not kept (a flood of forged ones must not fill it).
 */
export class TokenVerifier {
  private readonly valid = new Map<string, { grant: Grant; expiresAt: number }>();

  constructor(
    private readonly key: KeyObject,
    private readonly maxEntries = 10_000,
  ) {}

  verify(token: string, now = Date.now()): Grant | undefined {
    const known = this.valid.get(token);
    if (known && known.expiresAt > now) return known.grant;
    if (known) this.valid.delete(token);
    const checked = verified(token, this.key, now);
    if (!checked) return undefined;
    if (this.valid.size >= this.maxEntries) this.valid.clear();
    this.valid.set(token, checked);
    return checked.grant;
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
