import { createSecretKey, type KeyObject } from 'node:crypto';
import { parseJwtSecrets, type Config, type JwtSecret } from '@entia/config';
import { TOKEN_LIFETIME_SECONDS, boundedCache, type BoundedCache } from '@entia/domain';
import jwt from 'jsonwebtoken';
import type { Grant } from '../http/caller';

/** What a token grants (declared with the request's caller, where the HTTP layer reads it). */
export type { Grant } from '../http/caller';

/** A token and when it expires. */
export interface IssuedToken {
  token: string;
  /** ISO 8601, as Entu's client keeps it (`expires`). */
  expires: string;
}

const ALGORITHM = 'HS256';
const AUDIENCE = 'entia';

/** A secret made ready to sign or verify with, under the key id its tokens carry. */
export interface TokenKey {
  kid: string;
  key: KeyObject;
}

/**
 * The keys of JWT_SECRETS (or JWT_SECRET), made once per process: the first signs, each verifies
 * the tokens carrying its kid. Configuration is read at start only, so retiring a secret is a
 * restart with a new environment, and nothing of a retired secret survives in a process.
 */
export class TokenKeys {
  readonly signing: TokenKey;
  private readonly byKid: ReadonlyMap<string, KeyObject>;

  constructor(secrets: readonly JwtSecret[]) {
    if (secrets.length === 0) throw new Error('no JWT secret');
    const keys = secrets.map(({ kid, secret }) => ({ kid, key: tokenKey(secret) }));
    this.signing = keys[0]!;
    this.byKid = new Map(keys.map(({ kid, key }) => [kid, key]));
  }

  static fromConfig(config: Pick<Config, 'JWT_SECRET' | 'JWT_SECRETS'>): TokenKeys {
    return new TokenKeys(parseJwtSecrets(config));
  }

  /** The key of `kid`, or undefined: a retired or made-up kid verifies nothing. */
  named(kid: string): KeyObject | undefined {
    return this.byKid.get(kid);
  }

  /** Every verification key, for tokens issued before key ids (see `verified`). */
  all(): Iterable<KeyObject> {
    return this.byKid.values();
  }
}

/**
 * The key object of a secret. Given the secret as a string, jsonwebtoken first tries to parse it
 * as a PEM public key on every call and only then falls back to an HMAC key: that failed parse was
 * half the API's CPU time on a cached GET (measured with the load benchmark's `--profile`).
 */
export function tokenKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret, 'utf8'));
}

/**
 * A token for `grant`: the header's `kid` names the signing secret, the `key` claim the
 * API key it was exchanged for (before key rotation that hash was the header's `kid`), `auth_time` when
 * the credential was shown (now, unless a refresh carries the grant's on).
 */
export function issueToken(grant: Grant, signing: TokenKey, now = Date.now()): IssuedToken {
  const iat = Math.floor(now / 1000);
  const exp = iat + TOKEN_LIFETIME_SECONDS;
  const token = jwt.sign({ accounts: grant.accounts, key: grant.kid, auth_time: grant.authTime ?? iat, iat, exp }, signing.key, {
    algorithm: ALGORITHM,
    audience: AUDIENCE,
    keyid: signing.kid,
  });
  return { token, expires: new Date(exp * 1000).toISOString() };
}

// A secret's key id is at most 32 characters (JWT_SECRETS); a credential's record id, the kid of tokens
// issued before key rotation, is a SHA-256 in hex (64). The two can never be taken for each other.
const SECRET_KID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * The grant of a token valid at `now` and when it expires (ms); undefined for a forged, expired,
 * malformed or foreign one, or one whose key id names no secret of ours (a retired one).
 *
 * Two shapes are accepted. Current tokens: a `key` claim (the API key) and a header `kid` naming one
 * of the secrets, checked with that secret only. Tokens issued before key ids: no `key`
 * claim, the API key's hash as the header's `kid`, signed with what was JWT_SECRET — which may now
 * sit under any kid in JWT_SECRETS, so each secret is tried (at most 8 HMACs, and only until the
 * last such token expires, 48 h after the upgrade; a forged one is refused by all of them).
 */
function verified(token: string, keys: TokenKeys, now: number): { grant: Grant; expiresAt: number } | undefined {
  const decoded = jwt.decode(token, { complete: true });
  if (decoded === null || typeof decoded.payload !== 'object') return undefined;
  const kid = decoded.header.kid;
  if (typeof kid !== 'string') return undefined;
  const apiKey = (decoded.payload as { key?: unknown }).key;
  if (apiKey !== undefined) {
    if (typeof apiKey !== 'string' || !SECRET_KID.test(kid)) return undefined;
    const key = keys.named(kid);
    return key && checked(token, key, now, apiKey);
  }
  if (SECRET_KID.test(kid)) return undefined;
  for (const key of keys.all()) {
    const grant = checked(token, key, now, kid);
    if (grant) return grant;
  }
  return undefined;
}

/** The grant of `token` if `key` signed it and it is valid at `now`, naming the API key `apiKey`. */
function checked(token: string, key: KeyObject, now: number, apiKey: string): { grant: Grant; expiresAt: number } | undefined {
  try {
    const payload = jwt.verify(token, key, { algorithms: [ALGORITHM], audience: AUDIENCE, clockTimestamp: Math.floor(now / 1000) }) as {
      accounts?: unknown;
      exp?: unknown;
      iat?: unknown;
      auth_time?: unknown;
    };
    if (!isAccounts(payload.accounts) || typeof payload.exp !== 'number') return undefined;
    const authTime = typeof payload.auth_time === 'number' ? payload.auth_time : typeof payload.iat === 'number' ? payload.iat : undefined;
    return { grant: { accounts: payload.accounts, kid: apiKey, ...(authTime === undefined ? {} : { authTime }) }, expiresAt: payload.exp * 1000 };
  } catch {
    return undefined;
  }
}

/**
 * Verifies tokens, remembering the valid ones it saw until they expire: a client sends the same
 * token with every request for up to 48 h, and what its signature proved cannot change (whether
 * its API key still opens the database is `KeyLiveness`'s, asked every time). Checking it again —
 * base64, two JSON parses, an HMAC — was about 12 µs of CPU per request. Bounded
 * (`verified-tokens`): the least recently used goes first. No ttl of the cache's own: each entry
 * lives until its token's `exp`, checked on every read against the caller's clock. Refused tokens
 * are not kept (a flood of forged ones must not fill it); nothing loads, so nothing is shared.
 * It lives in one process with the keys it was built with: a secret retired from JWT_SECRETS takes
 * effect by restarting with the new list, which starts with an empty memory.
 */
export class TokenVerifier {
  private readonly valid: BoundedCache<string, { grant: Grant; expiresAt: number }>;

  constructor(
    private readonly keys: TokenKeys,
    max?: number,
  ) {
    this.valid = boundedCache('verified-tokens', { max });
  }

  verify(token: string, now = Date.now()): Grant | undefined {
    const known = this.valid.get(token);
    if (known && known.expiresAt > now) return known.grant;
    if (known) this.valid.delete(token);
    const found = verified(token, this.keys, now);
    if (!found) return undefined;
    this.valid.set(token, found);
    return found.grant;
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
