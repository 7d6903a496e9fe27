export { ConfigSchema, type Config } from './schema';
export { ConfigError, loadConfig, loadConfigOrExit } from './load';
export { parseCorsOrigins, type CorsOrigins } from './cors';
export { parseOidcProviders, parseRedirectUris, parseWebauthnOrigins, type OidcProvider } from './sign-in';
export { JWT_SECRET_KID, parseJwtSecrets, type JwtSecret } from './jwt-secrets';
export { cacheRedisUrl } from './redis';
