import type { LoggerOptions } from 'pino';

/** What a redacted value becomes in the log. */
export const REDACTED = '[Redacted]';

/**
 * Query parameters whose values are credentials wherever a URL carries them: a presigned S3 URL's
 * signature, credential (access key id) and session token, and the names clients put a token or
 * key under by mistake. Compared lowercased.
 */
const SECRET_QUERY_PARAMETERS = new Set([
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'signature',
  'awsaccesskeyid',
  'token',
  'access_token',
  'id_token',
  'jwt',
  'api_key',
  'apikey',
  'key',
  // A change stream's single-use ticket.
  'ticket',
  // OpenID Connect sign-in: the provider's authorization code and state at the
  // callback, the one-time code an app receives.
  'code',
  'state',
  'entia_code',
  // An invitation's token, as Entu's client passes it on: `GET /api/auth?invite=`,
  // and its pages' `?token=` (above) and `?invite=`.
  'invite',
]);

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

export function isSecretQueryParameter(name: string): boolean {
  return SECRET_QUERY_PARAMETERS.has(decoded(name).trim().toLowerCase());
}

/**
 * `url` (absolute or a path) with the values of secret query parameters replaced: the request
 * stays readable in the log (path, which parameters) without what would let anyone replay it.
 */
export function scrubUrl(url: string): string {
  return url.replace(/([?&])([^=&#]*)=([^&#]*)/g, (whole, separator: string, name: string) =>
    isSecretQueryParameter(name) ? `${separator}${name}=${REDACTED}` : whole,
  );
}

/**
 * Headers that carry credentials: the bearer API key or JWT, cookies either way, and the
 * `Idempotency-Key` (with the caller's token it fetches a kept answer, which may hold a freshly
 * generated API key).
 */
const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'idempotency-key'];

/**
 * pino's `redact` for every API log line. The request log serialises each request (`req`: url, query,
 * headers) and response (`res`: headers, e.g. the signed `Location` of a download redirect); bodies
 * are not logged, but an error or a future log call carrying one (`body`, an `apiKey`, a `token`)
 * is covered too. URLs keep their shape and lose only their secret parameters.
 */
export const LOG_REDACTION: NonNullable<LoggerOptions['redact']> = {
  paths: [
    ...SECRET_HEADERS.map((name) => `req.headers["${name}"]`),
    'res.headers["set-cookie"]',
    'req.url',
    'res.headers.location',
    'req.query.*',
    'body',
    '*.body',
    'apiKey',
    '*.apiKey',
    'token',
    '*.token',
  ],
  censor: (value: unknown, path: string[]) => {
    const last = path[path.length - 1] ?? '';
    if (last === 'url' || last === 'location') return typeof value === 'string' ? scrubUrl(value) : REDACTED;
    if (path[path.length - 2] === 'query') return isSecretQueryParameter(last) ? REDACTED : value;
    return REDACTED;
  },
};
