import type { OidcProvider } from '@entia/config';
import type { Identity, ProviderProfile } from '@entia/domain';
import type { RedisBreaker } from '@entia/jobs';
import * as client from 'openid-client';
import { SingleUse } from './single-use';

/** How long a person may take at their provider between the start of a sign-in and its callback. */
export const SIGN_IN_SECONDS = 600;

/** The code flow's return: the app's exact `redirect`, with a one-time code for `db`. */
export interface CodeReturn {
  db: string;
  redirect: string;
  /** The app's own state, handed back with the one-time code (its guard against login CSRF). */
  appState?: string;
}

/** Entu's client's return: its `next` address, with a one-time sign-in key and no database chosen yet. */
export interface KeyReturn {
  next: string;
}

/** A sign-in under way, kept under its `state` until the provider calls back. */
export type PendingSignIn = { provider: string; verifier: string; nonce: string } & (CodeReturn | KeyReturn);

export function returnsWithKey(pending: PendingSignIn): pending is PendingSignIn & KeyReturn {
  return 'next' in pending;
}

/** What a provider's verified answer says of the person. */
export interface VerifiedPerson {
  identity: Identity;
  profile: ProviderProfile;
}

/** The provider could not be asked (down, misconfigured): the sign-in may work later. */
export class ProviderUnavailable extends Error {
  override readonly name = 'ProviderUnavailable';
}

/**
 * The OpenID Connect relying party, on openid-client: the authorization code flow with
 * PKCE (S256), state and nonce, and the issuer checked in discovery, in the authorization response
 * (RFC 9207 `iss`) and in the ID token. Each provider's metadata is discovered on first use and
 * kept; a failed discovery is tried again by the next sign-in.
 */
export class OidcSignIn {
  private readonly providers: ReadonlyMap<string, OidcProvider>;
  private readonly configurations = new Map<string, Promise<client.Configuration>>();
  private readonly pending: SingleUse<PendingSignIn>;

  constructor(
    providers: readonly OidcProvider[],
    private readonly publicUrl: string,
    private readonly timeoutMs: number,
    breaker: RedisBreaker,
    prefix: string,
  ) {
    this.providers = new Map(providers.map((provider) => [provider.name, provider]));
    this.pending = new SingleUse(breaker, `${prefix}:oidc:state`, SIGN_IN_SECONDS);
  }

  has(name: string): boolean {
    return this.providers.has(name);
  }

  /** Where the provider sends the person back: registered with the provider as the client's redirect URI. */
  callbackUrl(name: string): string {
    return `${this.publicUrl.replace(/\/+$/, '')}/api/auth/oidc/${encodeURIComponent(name)}/callback`;
  }

  /** The provider's authorization URL for a new sign-in, its checks kept until the callback. */
  async start(name: string, back: CodeReturn | KeyReturn, loginHint?: string): Promise<URL> {
    const provider = this.providers.get(name)!;
    const configuration = await this.configuration(provider);
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const state = await this.pending.issue({ provider: name, ...back, verifier, nonce });
    return client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.callbackUrl(provider.name),
      scope: provider.scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      ...(loginHint === undefined ? {} : { login_hint: loginHint }),
    });
  }

  /** The sign-in a callback's `state` belongs to, taken: a state works once. */
  takePending(state: string): Promise<PendingSignIn | undefined> {
    return this.pending.take(state);
  }

  /**
   * Redeems the callback's code at the provider and verifies its ID token. Throws the library's
   * error for an answer that fails a check (refused: tampered, replayed, another issuer), and
   * `ProviderUnavailable` when the provider cannot be reached.
   */
  async finish(pending: PendingSignIn, state: string, query: string): Promise<VerifiedPerson> {
    const provider = this.providers.get(pending.provider)!;
    const configuration = await this.configuration(provider);
    // The callback as the provider addressed it (behind a proxy the request's own URL may differ).
    const current = new URL(`${this.callbackUrl(provider.name)}?${query}`);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: pending.verifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw unreachable(error) ? new ProviderUnavailable(`${provider.name} could not be reached`) : error;
    }
    const claims = tokens.claims()!;
    return {
      identity: { issuer: claims.iss, sub: claims.sub },
      profile: {
        emailVerified: claims.email_verified === true,
        ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
        ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
      },
    };
  }

  private configuration(provider: OidcProvider): Promise<client.Configuration> {
    let found = this.configurations.get(provider.name);
    if (!found) {
      found = discover(provider, this.timeoutMs);
      this.configurations.set(provider.name, found);
      found.catch(() => this.configurations.delete(provider.name));
    }
    return found;
  }
}

async function discover(provider: OidcProvider, timeoutMs: number): Promise<client.Configuration> {
  const loopback = new URL(provider.issuer).protocol === 'http:';
  try {
    return await client.discovery(
      new URL(provider.issuer),
      provider.clientId,
      undefined,
      provider.clientSecret === undefined ? client.None() : client.ClientSecretPost(provider.clientSecret),
      // http issuers are allowed on loopback hosts only (checked with the configuration).
      { execute: loopback ? [client.allowInsecureRequests] : [], timeout: Math.ceil(timeoutMs / 1000) },
    );
  } catch (error) {
    // Its metadata naming another issuer is a misconfiguration, not an outage; both leave sign-in unavailable.
    throw new ProviderUnavailable(`${provider.name}: discovery failed (${(error as Error).message})`);
  }
}

/**
 * A failure to reach the provider or to get a usable answer from it (down, timed out, an error page
 * instead of JSON), as opposed to an answer that failed a check. Told by names and openid-client's
 * codes, not `instanceof`: fetch's errors may come from another realm (a test runner's, say).
 */
function unreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, message, code, cause } = error as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
  // undici's fetch fails a request it could not make with exactly this (the reason in its cause).
  if ((name === 'TypeError' && message === 'fetch failed') || name === 'TimeoutError' || name === 'AbortError') return true;
  if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
  return cause !== undefined && unreachable(cause);
}

const UNREACHABLE_CODES = new Set(['OAUTH_TIMEOUT', 'OAUTH_ABORT', 'OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON', 'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT']);
