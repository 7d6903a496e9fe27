import { parseOidcProviders, parseWebauthnOrigins } from '@entia/config';
import type { Deps } from '../deps';
import { OidcSignIn } from './oidc';
import { PasskeyCeremonies } from './passkeys';

/** How long a call to an OpenID provider (discovery, the code's redemption) may take. */
const PROVIDER_TIMEOUT_MS = 10_000;

/** The OpenID Connect relying party of OIDC_PROVIDERS (none configured: every provider is unknown). */
export function oidcSignIn({ config, breaker }: Deps): OidcSignIn {
  return new OidcSignIn(parseOidcProviders(config.OIDC_PROVIDERS), config.PUBLIC_URL, PROVIDER_TIMEOUT_MS, breaker, config.REDIS_PREFIX);
}

/** The WebAuthn relying party of WEBAUTHN_RP_ID; undefined when passkeys are off. */
export function passkeyCeremonies({ config, breaker }: Deps): PasskeyCeremonies | undefined {
  if (config.WEBAUTHN_RP_ID === 'none') return undefined;
  const rp = { id: config.WEBAUTHN_RP_ID, name: config.WEBAUTHN_RP_NAME, origins: parseWebauthnOrigins(config.WEBAUTHN_ORIGINS, config.WEBAUTHN_RP_ID) };
  return new PasskeyCeremonies(rp, breaker, config.REDIS_PREFIX);
}
