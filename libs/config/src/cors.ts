/** The browser origins allowed to call the API: every origin, or exactly these (none when empty). */
export type CorsOrigins = '*' | readonly string[];

/**
 * Reads `CORS_ORIGINS`: `*`, `none`, or comma-separated origins. An origin is written as browsers
 * send it in `Origin` (scheme, host, port when not the default; lower case, no path, no trailing
 * slash), because it is compared with that header as a string: `https://App.example.com/` would
 * silently never match, so it is refused at start instead.
 */
export function parseCorsOrigins(value: string): CorsOrigins {
  const trimmed = value.trim();
  if (trimmed === '*') return '*';
  if (trimmed === 'none') return [];
  return trimmed.split(',').map((part) => {
    const origin = part.trim();
    if (origin !== canonical(origin)) {
      throw new Error(`has ${JSON.stringify(origin)}, which is not an origin: write *, none, or origins like https://app.example.com (scheme://host[:port], lower case, nothing after)`);
    }
    return origin;
  });
}

function canonical(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
