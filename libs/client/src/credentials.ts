import { jwtExpiresAt } from './jwt';
import type { AuthResult } from './types';

interface Cached {
  token: string;
  expiresAt: number | undefined;
}

export interface CredentialsOptions {
  /** Performs `GET /api/auth`; absent when the client has no API key and so cannot renew. */
  exchange: (() => Promise<AuthResult>) | undefined;
  /** A token obtained earlier (e.g. persisted by the caller), used until it nears expiry. */
  token: string | undefined;
  /** Renew this long before `exp`, so a token never expires between being sent and being checked. */
  marginMs: number;
  now: () => number;
}

/**
 * The JWT the client sends: exchanged from the API key on first need, reused until shortly before it
 * expires, renewed once when the server refuses it. Callers arriving while an exchange is under way
 * wait for that one instead of starting their own, so a burst of first calls costs one key exchange.
 */
export class Credentials {
  private cached: Cached | undefined;
  private pending: Promise<AuthResult> | undefined;

  constructor(private readonly options: CredentialsOptions) {
    if (options.token !== undefined) this.cached = cache(options.token);
  }

  get canRenew(): boolean {
    return this.options.exchange !== undefined;
  }

  /** The token to send now. */
  async token(): Promise<string> {
    const cached = this.cached;
    // Without a key there is nothing to renew with: send what we have and let the server judge it.
    if (cached && (this.fresh(cached) || !this.canRenew)) return cached.token;
    // A token that is already inside the margin when it arrives is still used for the call that
    // waited for it; only later calls exchange again, so this can never loop.
    return (await this.exchange()).token;
  }

  /**
   * A token to replace `refused`, which the server answered 401. When another call already renewed
   * it, that newer token is reused rather than exchanging the key a second time.
   */
  async renew(refused: string): Promise<string> {
    const cached = this.cached;
    if (cached && cached.token !== refused && this.fresh(cached)) return cached.token;
    if (cached?.token === refused) this.cached = undefined;
    return (await this.exchange()).token;
  }

  /** A key exchange, joining the one in flight if there is one. Failures are not cached: the next call tries again. */
  exchange(): Promise<AuthResult> {
    const exchange = this.options.exchange;
    if (!exchange) return Promise.reject(new Error('EntiaClient: no apiKey given, so there is no key to exchange'));
    this.pending ??= exchange()
      .then((result) => {
        if (typeof result?.token !== 'string') throw new Error('GET /api/auth answered without a token');
        this.cached = cache(result.token);
        return result;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  private fresh(cached: Cached): boolean {
    return cached.expiresAt === undefined || this.options.now() < cached.expiresAt - this.options.marginMs;
  }
}

function cache(token: string): Cached {
  return { token, expiresAt: jwtExpiresAt(token) };
}
