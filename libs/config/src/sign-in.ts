import { issuerUrlProblem } from '@entia/domain';
import { parseCorsOrigins } from './cors';

/** An OpenID provider people may sign in with. */
export interface OidcProvider {
  /** The name in `/api/auth/oidc/<name>`. */
  name: string;
  issuer: string;
  clientId: string;
  /** Absent for a public client (PKCE alone). */
  clientSecret?: string;
  scope: string;
}

const PROVIDER_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
/** Paths beside `/api/auth/<provider>` (Entu's client starts a provider sign-in there). */
const RESERVED_NAMES = new Set(['oidc', 'passkey', 'refresh']);
const DEFAULT_SCOPE = 'openid email profile';
const PROVIDER_KEYS = new Set(['issuer', 'clientId', 'clientSecret', 'scope']);

/**
 * Reads `OIDC_PROVIDERS`: `none`, or a JSON object of providers by name, each
 * `{"issuer", "clientId", "clientSecret"?, "scope"?}`. Messages never quote a client secret.
 */
export function parseOidcProviders(value: string): OidcProvider[] {
  if (value.trim() === 'none') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error('is not JSON: write none, or {"<name>": {"issuer": "https://…", "clientId": "…", "clientSecret": "…"}}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('must be a JSON object of providers by name');
  return Object.entries(parsed as Record<string, unknown>).map(([name, entry]) => provider(name, entry));
}

function provider(name: string, entry: unknown): OidcProvider {
  const fail = (message: string) => new Error(`provider ${JSON.stringify(name.slice(0, 40))}: ${message}`);
  if (!PROVIDER_NAME.test(name)) throw fail('a name is 1 to 32 lower-case letters, digits and dashes');
  if (RESERVED_NAMES.has(name)) throw fail(`${[...RESERVED_NAMES].join(', ')} name other paths under /api/auth: choose another name`);
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw fail('must be an object');
  const fields = entry as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !PROVIDER_KEYS.has(key));
  if (unknown !== undefined) throw fail(`unknown field ${JSON.stringify(unknown.slice(0, 40))} (issuer, clientId, clientSecret, scope)`);
  const { issuer, clientId, clientSecret, scope = DEFAULT_SCOPE } = fields;
  if (typeof issuer !== 'string') throw fail('needs its issuer URL');
  const problem = issuerUrlProblem(issuer);
  if (problem) throw fail(problem);
  if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 512) throw fail('needs its clientId (1 to 512 characters)');
  if (clientSecret !== undefined && (typeof clientSecret !== 'string' || clientSecret.length === 0)) throw fail('clientSecret, when given, is a non-empty string');
  if (typeof scope !== 'string' || !scope.split(' ').includes('openid')) throw fail('scope is a space-separated string that includes openid');
  return { name, issuer, clientId, ...(clientSecret === undefined ? {} : { clientSecret }), scope };
}

/**
 * Reads `OIDC_REDIRECT_URIS`: `none`, or the comma-separated addresses a sign-in may return to,
 * compared exactly (an open redirect would hand the one-time code to anyone).
 */
export function parseRedirectUris(value: string): string[] {
  if (value.trim() === 'none') return [];
  return value.split(',').map((part) => {
    const uri = part.trim();
    let url: URL | undefined;
    try {
      url = new URL(uri);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash || url.href !== uri) {
      throw new Error(`has ${JSON.stringify(uri.slice(0, 200))}, which is not an absolute http(s) URL as written by the URL standard (no fragment)`);
    }
    return uri;
  });
}

/** Reads `WEBAUTHN_ORIGINS`: the origins passkey ceremonies may come from, each on the relying party's domain. */
export function parseWebauthnOrigins(value: string, rpId: string): string[] {
  const origins = parseCorsOrigins(value);
  if (origins === '*' || origins.length === 0) throw new Error('must name the origins of your web app (a passkey is bound to them)');
  for (const origin of origins) {
    const host = new URL(origin).hostname;
    if (host !== rpId && !host.endsWith(`.${rpId}`)) throw new Error(`has ${origin}, which is not on WEBAUTHN_RP_ID ${rpId} (nor a subdomain of it)`);
  }
  return [...origins];
}
