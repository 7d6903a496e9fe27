/**
 * What a span may carry (secrets never in span attributes). The instrumentations record
 * URLs, queries and statements; these rules keep their shape and drop their values. Pure, so each
 * rule has its table test (libs/telemetry/test/scrub.test.ts).
 */
type AttributeValue = string | number | boolean | Array<null | undefined | string> | Array<null | undefined | number> | Array<null | undefined | boolean>;
type Attributes = Record<string, AttributeValue | undefined>;

/** Span kinds as @opentelemetry/api numbers them (SpanKind.SERVER = 1, CLIENT = 2). */
export const SERVER_KIND = 1;
export const CLIENT_KIND = 2;

const REDACTED = '[redacted]';
// A bearer credential or a JWT anywhere in a string: Entia's API keys travel as the first, its
// session tokens are the second. Neither should reach an attribute, but an error message might
// quote one: the last line of defence.
const BEARER = /\bBearer\s+[^\s,;]+/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
// The password of a URL (`mongodb://entia:<password>@host`, `redis://:<password>@host`): a driver's
// error message may quote its connection string.
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*):[^\s/?#@]*@/gi;

/**
 * The attributes of an ending span that must change, as replacements (an empty object: none).
 * - `url.query` (the API's incoming requests): parameter names kept, values gone — a filter's
 *   values are data, an EventSource ticket or a sign-in `code` is a credential;
 * - `url.full` of outgoing calls: scheme, host and port only — a webhook's path or query is often
 *   its secret (Slack-style hook URLs), and object keys are not needed to see a slow S3 call;
 * - any string holding a bearer credential, a JWT or a URL with a password: that part replaced.
 */
export function scrubbedAttributes(kind: number, attributes: Attributes): Attributes {
  const changes: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (typeof value !== 'string') continue;
    let next = value;
    if (key === 'url.query') next = queryShape(value);
    else if (key === 'url.full' && kind === CLIENT_KIND) next = originOf(value);
    else if (key === 'url.full') next = withoutQueryValues(value);
    next = withoutCredentials(next);
    if (next !== value) changes[key] = next;
  }
  return changes;
}

/** `a=1&b=x&b=y` → `a=?&b=?&b=?`: which parameters a request had, not what they said. */
export function queryShape(query: string): string {
  return query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => `${pair.split('=')[0]}=?`)
    .join('&');
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return REDACTED;
  }
}

function withoutQueryValues(url: string): string {
  const at = url.indexOf('?');
  return at === -1 ? url : `${url.slice(0, at)}?${queryShape(url.slice(at + 1))}`;
}

export function withoutCredentials(text: string): string {
  return text.replace(BEARER, `Bearer ${REDACTED}`).replace(JWT, REDACTED).replace(URL_PASSWORD, `$1:${REDACTED}@`);
}

/**
 * A MongoDB command as `db.query.text`: its shape (keys, nesting) with every value a `?`, so a
 * slow query can be recognised without recording what it looked for (a key hash, a person's
 * e-mail). Arrays keep their first element's shape only; depth and length are bounded.
 */
export function commandShape(command: unknown): string {
  return JSON.stringify(shapeOf(command, 0)) ?? '?';
}

const MAX_DEPTH = 6;
const MAX_KEYS = 32;

function shapeOf(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return '?';
  // ObjectId, Date, Binary, Decimal128…: values, whatever their class.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function' || value instanceof Uint8Array) return '?';
  if (depth >= MAX_DEPTH) return '…';
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0], depth + 1), ...(value.length > 1 ? ['…'] : [])];
  const shape: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (const key of keys.slice(0, MAX_KEYS)) shape[key] = shapeOf((value as Record<string, unknown>)[key], depth + 1);
  if (keys.length > MAX_KEYS) shape['…'] = keys.length - MAX_KEYS;
  return shape;
}
