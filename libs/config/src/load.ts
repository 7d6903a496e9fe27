import Ajv, { type ErrorObject } from 'ajv';
import { parseCorsOrigins } from './cors';
import { ConfigSchema, type Config } from './schema';
import { parseJwtSecrets } from './jwt-secrets';
import { parseOidcProviders, parseRedirectUris, parseWebauthnOrigins } from './sign-in';

/** Thrown when the environment does not describe a runnable service; the message is one line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

type SettingName = keyof typeof ConfigSchema.properties;

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: true });
const validate = ajv.compile<Config>(ConfigSchema);

/**
 * Reads and validates the settings in `env`. Environment values are strings, so they are coerced
 * to the schema's types; an empty string counts as unset (so `PORT=` falls back to the default).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(ConfigSchema.properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[name] = value;
  }
  const candidate: Record<string, unknown> = { ...raw };
  const valid = validate(candidate);
  const found = valid ? [] : problems(validate.errors ?? [], raw);
  const more = [corsProblem(candidate, raw), ...(valid ? signInProblems(candidate) : []), ...(valid ? mailProblems(candidate) : []), jwtSecretsProblem(candidate)].filter(
    (problem) => problem !== undefined,
  );
  found.push(...more);
  if (valid && more.length === 0) return candidate;
  throw new ConfigError(`invalid configuration: ${found.join('; ')}`);
}

/**
 * CORS_ORIGINS beyond its type: each origin must be one a browser can send. Unset, it is `*` in
 * development (a page on another local port just works) and `none` otherwise (the schema default).
 */
function corsProblem(candidate: Record<string, unknown>, raw: Record<string, string>): string | undefined {
  if (raw.CORS_ORIGINS === undefined && candidate.NODE_ENV === 'development') candidate.CORS_ORIGINS = '*';
  if (typeof candidate.CORS_ORIGINS !== 'string') return undefined;
  try {
    parseCorsOrigins(candidate.CORS_ORIGINS);
    return undefined;
  } catch (error) {
    return `CORS_ORIGINS ${(error as Error).message}`;
  }
}

/** JWT_SECRETS / JWT_SECRET beyond their types: one of them, well formed (`parseJwtSecrets`). */
function jwtSecretsProblem(candidate: Record<string, unknown>): string | undefined {
  const { JWT_SECRET, JWT_SECRETS } = candidate;
  if (typeof JWT_SECRET !== 'string' || typeof JWT_SECRETS !== 'string') return undefined;
  try {
    parseJwtSecrets({ JWT_SECRET, JWT_SECRETS });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The sign-in settings beyond their types: each well formed, and those that go together given together. */
function signInProblems(config: Config): string[] {
  const found: string[] = [];
  const check = (name: string, parse: () => unknown) => {
    try {
      parse();
    } catch (error) {
      found.push(`${name} ${(error as Error).message}`);
    }
  };
  check('OIDC_PROVIDERS', () => parseOidcProviders(config.OIDC_PROVIDERS));
  check('OIDC_REDIRECT_URIS', () => parseRedirectUris(config.OIDC_REDIRECT_URIS));
  if (config.OIDC_PROVIDERS.trim() !== 'none') {
    if (config.PUBLIC_URL === 'none') found.push('PUBLIC_URL is required with OIDC_PROVIDERS (the providers call the API back there)');
    if (config.OIDC_REDIRECT_URIS.trim() === 'none') found.push('OIDC_REDIRECT_URIS is required with OIDC_PROVIDERS (where a sign-in may return to)');
  }
  if (config.WEBAUTHN_RP_ID !== 'none') check('WEBAUTHN_ORIGINS', () => parseWebauthnOrigins(config.WEBAUTHN_ORIGINS, config.WEBAUTHN_RP_ID));
  return found;
}

/** The mail settings beyond their types: a URL that parses (never shown: it may hold a password), and what goes with it. */
function mailProblems(config: Config): string[] {
  if (config.SMTP_URL === 'none') return [];
  const found: string[] = [];
  let url: URL | undefined;
  try {
    url = new URL(config.SMTP_URL);
  } catch {
    found.push('SMTP_URL is not a URL (smtp://[user:password@]host[:port] or smtps://…)');
  }
  if (url && (url.hostname === '' || url.pathname.replace(/^\/$/, '') !== '' || url.search !== '' || url.hash !== '')) {
    found.push('SMTP_URL is smtp(s)://[user:password@]host[:port], with no path, query or fragment');
  }
  if (config.SMTP_FROM === 'none') found.push('SMTP_FROM is required with SMTP_URL (the From of invitation e-mails)');
  if (config.APP_URL === 'none') found.push('APP_URL is required with SMTP_URL (invitation e-mails link to it)');
  return found;
}

/** One message per offending variable (a union alone yields an error for each of its members). */
function problems(errors: ErrorObject[], raw: Record<string, string>): string[] {
  const byName = new Map<string, string>();
  for (const error of errors) {
    if (error.keyword === 'required') {
      byName.set(String(error.params.missingProperty), 'is required');
      continue;
    }
    const name = error.instancePath.slice(1) as SettingName;
    if (byName.has(name) && error.keyword !== 'anyOf') continue;
    byName.set(name, `${expectation(name, error)}${shown(name, raw[name])}`);
  }
  return [...byName].map(([name, message]) => `${name} ${message}`);
}

function expectation(name: SettingName, error: ErrorObject): string {
  const schema = ConfigSchema.properties[name] as { anyOf?: { const: string }[] };
  return schema.anyOf ? `must be one of ${schema.anyOf.map((s) => s.const).join('|')}` : (error.message ?? 'is invalid');
}

// Secrets never reach a log line, not even when they are wrong; nor do connection strings, which may hold a password.
function shown(name: string, value: string | undefined): string {
  return value === undefined || /SECRET|ACCESS_KEY|OIDC_PROVIDERS|REDIS_URL|MONGODB_URL|SMTP_URL/.test(name) ? '' : ` (got ${JSON.stringify(value)})`;
}

/**
 * For a service's main(): the validated configuration, or one line on stderr naming what is wrong
 * and exit code 78 (EX_CONFIG), so an orchestrator shows the reason instead of a crash loop trace.
 */
export function loadConfigOrExit(service: string, env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${service}: ${error.message}\n`);
    process.exit(78);
  }
}
